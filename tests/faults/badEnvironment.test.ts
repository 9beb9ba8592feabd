import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CHECK_COMMAND, makeRunRepo } from '../../bench/runScript.js';
import { compiledEntry, packageRoot } from '../../shared/core/runtime/compiledEntry.js';
import { agentJobId } from '../../shared/infra/queue/agentQueue.js';
import { git } from '../support/gitRepo.js';
import { OrcaTestEnv } from '../support/orcaEnv.js';
import { reportTurn, scriptedJob, testRunId, toolOutcomes, toolTurn } from '../support/scriptedJobs.js';
import { checkedWriter, type RunJson, writeRunScript } from './faultRun.js';

/**
 * What the user's machine or repository can throw at orca: an ORCA_HOME it cannot write, a full
 * disk under the worktrees, a detached HEAD, files that are not UTF-8, a tool printing 10 MB.
 * Each gives a clear error or is handled, and nothing the user had is lost or half-written.
 */

function repoIn(env: OrcaTestEnv, files?: Record<string, string | Buffer>): { repo: string; base: string } {
  const repo = path.join(env.dir('repo'), 'project');
  mkdirSync(repo, { recursive: true });
  for (const [name, content] of Object.entries(files ?? {})) {
    mkdirSync(path.dirname(path.join(repo, name)), { recursive: true });
    writeFileSync(path.join(repo, name), content);
  }
  return { repo, base: makeRunRepo(repo) };
}

function orcaBranches(repo: string): string {
  return git(repo, 'branch', '--list', 'orca/*');
}

describe('an ORCA_HOME that cannot be written', () => {
  it('stops orca run and orca worker with one line and exit 2, before anything is written', async () => {
    const env = await OrcaTestEnv.open();
    const { repo, base } = repoIn(env);
    const notAFolder = path.join(env.dir('home-parent'), 'file');
    writeFileSync(notAFolder, 'a file where ORCA_HOME would need a folder\n');
    const home = path.join(notAFolder, 'orca');
    const script = writeRunScript(env.dir('script'), [{ id: 'one', paths: ['one.txt'], turns: checkedWriter('one.txt') }]);
    const expected = `orca: ORCA_HOME ${home} is not writable (ENOTDIR): set ORCA_HOME to a folder you can write.`;

    const run = await env.cli(['run', 'a task', '--repo', repo, '--script', script, '--check', CHECK_COMMAND], {
      env: { ORCA_HOME: home },
    });
    expect(run.code).toBe(2);
    // No run id either: a run that cannot start is not announced.
    expect(run.stderr.trim()).toBe(expected);

    const worker = await env.cli(['worker'], { env: { ORCA_HOME: home } });
    expect(worker.code).toBe(2);
    expect(worker.stderr.trim()).toBe(expected);

    // Nothing was started or written: no run in Redis, the repository as it was.
    expect(await env.redis.keys(`${env.prefix}:run:*`)).toEqual([]);
    expect(orcaBranches(repo)).toBe('');
    expect(git(repo, 'rev-parse', 'HEAD')).toBe(base);
    expect(readFileSync(notAFolder, 'utf8')).toBe('a file where ORCA_HOME would need a folder\n');
  });
});

/**
 * A worker whose worktree folder is a 1 MiB tmpfs, mounted in a mount namespace of its own (so
 * nothing outlives it and nothing else sees it). Needs root, or unprivileged user namespaces
 * (which the bwrap sandbox needs too).
 */
const fullDiskWorkers: ChildProcess[] = [];
afterEach(async () => {
  for (const child of fullDiskWorkers.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
});

async function startWorkerOnSmallDisk(env: OrcaTestEnv): Promise<ChildProcess> {
  const worktrees = path.join(env.home, 'worktrees');
  mkdirSync(worktrees, { recursive: true });
  const asRoot = process.getuid?.() === 0;
  const child = spawn(
    'unshare',
    [
      ...(asRoot ? [] : ['--user', '--map-root-user']),
      '--mount',
      '--propagation',
      'private',
      '--',
      'sh',
      '-c',
      'mount -t tmpfs -o size=1m orca-test-full "$0" && exec "$@"',
      worktrees,
      process.execPath,
      compiledEntry('workers/main.ts'),
      '--concurrency',
      '1',
    ],
    { cwd: packageRoot(), env: env.processEnv(), stdio: ['ignore', 'ignore', 'pipe'] },
  );
  fullDiskWorkers.push(child);
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes('taking jobs')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the worker on a 1 MiB tmpfs did not start (exit ${code}): ${stderr}`)));
  });
  return child;
}

describe('a full disk under the worktrees', () => {
  it('fails a job whose checkout does not fit in one line, leaving no branch and no worktree behind', async () => {
    const env = await OrcaTestEnv.open();
    const { repo, base } = repoIn(env, { 'assets/big.bin': Buffer.alloc(2 * 1024 * 1024, 7) });
    await startWorkerOnSmallDisk(env);
    const script = path.join(env.dir('script'), 'agent.json');
    writeFileSync(script, JSON.stringify({ agents: [{ when: { role: 'worker' }, turns: [reportTurn('never runs')] }] }));

    const agent = await env.cli(['agent', '--role', 'worker', 'do a thing', '--repo', repo, '--script', script, '--no-local-workers']);
    expect(agent.code).toBe(2);
    const last = agent.stderr.trim().split('\n').at(-1)!;
    expect(last).toMatch(
      /^orca: job \S+ failed in its worker: git could not check out [0-9a-f]{12} into \S+: .*unable to write file assets\/big\.bin/,
    );
    expect(last).toMatch(
      /\(the file system holding \S+ has \d+ KiB free: if the files do not fit, free some space or set ORCA_HOME to a folder on a larger disk\)$/,
    );
    expect(orcaBranches(repo)).toBe('');
    expect(git(repo, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
    expect(git(repo, 'rev-parse', 'HEAD')).toBe(base);
    expect(git(repo, 'status', '--porcelain')).toBe('');
  });

  it('refuses a Write that does not fit, leaving the file as it was, and the agent goes on to commit what fits', async () => {
    const env = await OrcaTestEnv.open();
    const { repo, base } = repoIn(env, { 'notes.txt': 'first line\n' });
    await startWorkerOnSmallDisk(env);
    const runId = testRunId('fulldisk');
    await env.queue.add(
      scriptedJob({
        runId,
        taskId: 't1',
        repo: { path: repo },
        base,
        turns: [
          toolTurn('Read', { file_path: 'notes.txt' }),
          toolTurn('Write', { file_path: 'notes.txt', content: 'x'.repeat(2 * 1024 * 1024) }),
          toolTurn('Edit', { file_path: 'notes.txt', old_string: 'first line', new_string: 'first line, edited' }),
          reportTurn('edited notes.txt'),
        ],
      }),
    );
    const result = await env.result(agentJobId(runId, 't1', 1));
    expect(result.status).toBe('completed');
    const [, write, edit] = await toolOutcomes(env.redis, env.keys, runId, 't1');
    expect(write).toMatchObject({ name: 'Write', isError: true });
    expect(write!.preview).toMatch(/^Could not write notes\.txt \(ENOSPC: no space left on device\); it was left as it was\./);
    expect(edit).toMatchObject({ name: 'Edit', isError: false });
    expect(git(repo, 'show', `${result.commit}:notes.txt`)).toBe('first line, edited');
    expect(git(repo, 'rev-list', '--count', `${base}..${result.branch}`)).toBe('1');
  });
});

describe('a detached HEAD in the user repository', () => {
  it('runs from the detached commit and leaves the checkout detached where it was', async () => {
    const env = await OrcaTestEnv.open();
    const { repo } = repoIn(env);
    writeFileSync(path.join(repo, 'second.txt'), 'second\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'second');
    const detached = git(repo, 'rev-parse', 'HEAD~1');
    git(repo, 'checkout', '-q', '--detach', detached);
    const script = writeRunScript(env.dir('script'), [{ id: 'one', paths: ['one.txt'], turns: checkedWriter('one.txt') }]);

    const run = await env.cli(['run', 'a task', '--repo', repo, '--script', script, '--check', CHECK_COMMAND, '--json']);
    expect(run.code, run.stderr).toBe(0);
    const json = JSON.parse(run.stdout) as RunJson;
    expect(json).toMatchObject({ status: 'PASS', base: detached });
    expect(git(repo, 'ls-tree', '-r', '--name-only', json.head).split('\n').sort()).toEqual(['README.md', 'check.sh', 'one.txt']);
    // Still detached, at the same commit, with nothing changed in the checkout.
    expect(git(repo, 'rev-parse', 'HEAD')).toBe(detached);
    expect(() => git(repo, 'symbolic-ref', '-q', 'HEAD')).toThrow();
    expect(git(repo, 'status', '--porcelain')).toBe('');
  });
});

describe('files that are not UTF-8', () => {
  it('are refused by Read and Edit with the reason, left byte for byte as they were, and found by Grep', async () => {
    const env = await OrcaTestEnv.open();
    const latin1 = Buffer.from('name: caf\xe9\nprice: 3\n', 'latin1');
    const { repo, base } = repoIn(env, { 'legacy.txt': latin1 });
    await env.startWorker({ concurrency: 1 });
    const runId = testRunId('latin1');
    await env.queue.add(
      scriptedJob({
        runId,
        taskId: 't1',
        repo: { path: repo },
        base,
        turns: [
          toolTurn('Read', { file_path: 'legacy.txt' }),
          toolTurn('Edit', { file_path: 'legacy.txt', old_string: 'price: 3', new_string: 'price: 4' }),
          toolTurn('Grep', { pattern: 'price', output_mode: 'content' }),
          reportTurn('could not edit legacy.txt'),
        ],
      }),
    );
    const result = await env.result(agentJobId(runId, 't1', 1));
    expect(result.status).toBe('completed');
    const [read, edit, grep] = await toolOutcomes(env.redis, env.keys, runId, 't1');
    expect(read).toMatchObject({ isError: true });
    expect(read!.preview).toContain('legacy.txt is not valid UTF-8: byte 0xE9 on line 1');
    expect(edit).toMatchObject({ isError: true });
    expect(grep).toMatchObject({ isError: false, preview: 'legacy.txt:2:price: 3' });
    // Nothing was committed, and the worktree's copy is the same bytes.
    expect(result.commit).toBeUndefined();
    expect(readFileSync(path.join(repo, 'legacy.txt')).equals(latin1)).toBe(true);
  });
});

describe('a 10 MB tool output', () => {
  it('reaches the model as a preview and a file holding all of it; the agent goes on', async () => {
    const env = await OrcaTestEnv.open();
    const { repo, base } = repoIn(env);
    await env.startWorker({ concurrency: 1 });
    const runId = testRunId('tenmb');
    const bytes = 10 * 1024 * 1024;
    await env.queue.add(
      scriptedJob({
        runId,
        taskId: 't1',
        repo: { path: repo },
        base,
        turns: [toolTurn('Bash', { command: `yes 0123456789abcdef | head -c ${bytes}` }), reportTurn('printed a lot')],
      }),
    );
    const result = await env.result(agentJobId(runId, 't1', 1));
    expect(result.status).toBe('completed');
    const [bash] = await toolOutcomes(env.redis, env.keys, runId, 't1');
    expect(bash).toMatchObject({ name: 'Bash', isError: false });
    expect(bash!.preview.length).toBeLessThan(5_000);
    const saved = result.commands[0]!.output_file!;
    expect(statSync(saved).size).toBe(bytes);
    expect(readFileSync(saved, 'latin1').slice(0, 34)).toBe('0123456789abcdef\n0123456789abcdef\n');
  });
});
