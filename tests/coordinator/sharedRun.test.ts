import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CHECK_COMMAND, makeRunRepo } from '../../bench/runScript.js';
import { checkedWriter, is, OrcaProcess, waitForEntry, waitForGate, writeRunScript } from '../faults/faultRun.js';
import { git } from '../support/gitRepo.js';
import { OrcaTestEnv } from '../support/orcaEnv.js';

// Gates live outside /tmp: an agent's sandboxed shell has a /tmp of its own, and reads them from here.
const gates: string[] = [];
function gateDir(): string {
  const dir = mkdtempSync(path.join('/var/tmp', 'orca-gates-'));
  gates.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of gates.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A repository, a bare shared remote, a script with one task held at a gate, and two workers with homes of their own. */
async function sharedSetup() {
  const env = await OrcaTestEnv.open();
  const repo = path.join(env.dir('repo'), 'project');
  const base = makeRunRepo(repo);
  const bare = path.join(env.root, 'shared.git');
  execFileSync('git', ['init', '-q', '--bare', bare]);
  const gate = path.join(gateDir(), 'gate');
  const script = writeRunScript(env.dir('script'), [
    { id: 'one', paths: ['src/one.txt'], turns: checkedWriter('src/one.txt') },
    { id: 'slow', paths: ['src/slow.txt'], turns: checkedWriter('src/slow.txt', [waitForGate(gate)]) },
  ]);
  for (const host of ['host-a', 'host-b']) await env.startWorker({ home: env.dir(host), concurrency: 2 });
  const args = ['run', 'two files', '--repo', repo, '--script', script, '--check', CHECK_COMMAND, '--json', '--no-local-workers'];
  return { env, repo, base, bare, gate, args, share: `file://${bare}` };
}

function remoteRefs(bare: string, runId: string): string[] {
  return git(bare, 'for-each-ref', '--format=%(refname)', `refs/orca/${runId}/`).split('\n').filter(Boolean);
}

describe('a run shared over git: resume, abort, clean', () => {
  it('is resumed after its coordinator dies, with ORCA_SHARE kept from the run; orca clean deletes its refs on the remote', async () => {
    const { env, repo, base, bare, gate, args, share } = await sharedSetup();
    // ORCA_SHARE, not --share: the resumed coordinator is given neither, and takes it from the run's record.
    const run = new OrcaProcess(env, args, { ORCA_SHARE: share });
    const runId = await run.runId;
    await waitForEntry(env.redis, env.keys, runId, is.taskState('one', 'merged'), 'task one merging');
    await waitForEntry(env.redis, env.keys, runId, is.toolCall('slow', 'Bash'), 'task slow reaching its shell');
    run.child.kill('SIGKILL');
    await run.exited;

    const resume = new OrcaProcess(env, ['resume', runId, '--json', '--no-local-workers']);
    expect(await resume.runId).toBe(runId);
    writeFileSync(gate, '');
    const { code, json } = await resume.json();
    expect(code, resume.stderr).toBe(0);
    expect(json.status).toBe('PASS');
    expect(json.tasks.map((t) => [t.id, t.status, t.attempts])).toEqual([
      ['one', 'verified', 1],
      ['slow', 'verified', 1],
    ]);
    for (const task of json.tasks) expect(task.host).toBe(os.hostname());
    // The result is in the user's repository, both files in it, the checkout untouched.
    expect(git(repo, 'rev-parse', json.integration_branch)).toBe(json.head);
    expect(git(repo, 'ls-tree', '--name-only', '-r', json.integration_branch)).toContain('src/slow.txt');
    expect(git(repo, 'rev-parse', 'HEAD')).toBe(base);
    // Every job worked from the shared remote: the task refs are there, the remote's branches untouched.
    expect(remoteRefs(bare, runId).sort()).toEqual([`refs/orca/${runId}/integration`, `refs/orca/${runId}/one`, `refs/orca/${runId}/slow`]);
    expect(git(bare, 'for-each-ref', '--format=%(refname)', 'refs/heads')).toBe('');

    const clean = await env.cli(['clean', '--repo', repo, '--results']);
    expect(clean.code, clean.stdout + clean.stderr).toBe(0);
    expect(clean.stdout).toContain(`removed refs/orca/${runId}/slow on the shared remote ${share}`);
    expect(remoteRefs(bare, runId)).toEqual([]);
  });

  it('is aborted everywhere by orca abort: the held job stops, the run ends ABORTED', async () => {
    const { env, args, share } = await sharedSetup();
    const run = new OrcaProcess(env, [...args, '--share', share]);
    const runId = await run.runId;
    await waitForEntry(env.redis, env.keys, runId, is.toolCall('slow', 'Bash'), 'task slow reaching its shell');
    const board = await env.cli(['status', runId, '--json']);
    const slow = (JSON.parse(board.stdout) as { tasks: Array<{ task_id: string; host?: string; status: string }> }).tasks.find(
      (t) => t.task_id === 'slow',
    );
    expect(slow?.status).toBe('running');
    expect(slow?.host).toBeTruthy();
    const abort = await env.cli(['abort', runId]);
    expect(abort.code, abort.stderr).toBe(0);
    const { code, json } = await run.json();
    expect(code).toBe(130);
    expect(json.status).toBe('ABORTED');
    expect(json.tasks.find((t) => t.id === 'slow')?.status).toBe('aborted');
  });
});
