import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compiledEntry, packageRoot } from '../../shared/core/runtime/compiledEntry.js';
import { findOnPath } from '../../shared/policy/permissions/sandbox.js';
import { commitFiles, git } from '../support/gitRepo.js';
import { OrcaTestEnv, SLOW_TEST_MS } from '../support/orcaEnv.js';
import { reportTurn, scriptedJob, testRunId, toolTurn } from '../support/scriptedJobs.js';

const ONE_NOTE = path.join(packageRoot(), 'tests', 'fixtures', 'scripts', 'one-note.json');

/**
 * A PATH like this machine's with bwrap left out: one folder of links to every program on PATH
 * (node, git, npm, …) but bwrap. It stands in for a fresh machine that never installed bubblewrap.
 */
function pathWithoutBwrap(dir: string): string {
  for (const folder of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!folder || !existsSync(folder)) continue;
    for (const name of readdirSync(folder)) {
      if (name === 'bwrap' || existsSync(path.join(dir, name))) continue;
      symlinkSync(path.join(folder, name), path.join(dir, name));
    }
  }
  return dir;
}

/**
 * A setup command that leaves a mark named for its task in MARK_DIR, a folder under the host's
 * /tmp: only a setup that runs unsandboxed can reach it (the sandbox's /tmp is its own).
 */
const MARKING_SETUP = { 'orca.json': `${JSON.stringify({ setup: ['touch "$MARK_DIR/setup-$ORCA_TASK_ID" || true'] })}\n` };

function tinyRepo(dir: string, extra: Record<string, string> = {}): { dir: string; base: string } {
  git(dir, 'init', '-q', '-b', 'main');
  const base = commitFiles(
    dir,
    {
      ...extra,
      'package.json': `${JSON.stringify({ name: 'tiny', private: true, type: 'module', scripts: { test: 'node --test test/' } }, null, 2)}\n`,
      'test/one.test.js':
        "import assert from 'node:assert/strict';\nimport test from 'node:test';\ntest('one', () => assert.equal(1, 1));\n",
    },
    'initial',
  );
  return { dir, base };
}

let env: OrcaTestEnv;
let noBwrap: string;
beforeAll(async () => {
  env = await OrcaTestEnv.open({ shared: true });
  noBwrap = pathWithoutBwrap(env.dir('path-without-bwrap'));
});
afterAll(async () => {
  await env.close();
});

describe('the sandbox line and --sandbox', () => {
  it('is what this machine has: bwrap is installed where the tests run, and the stand-in PATH hides it', () => {
    expect(findOnPath('bwrap')).toBeDefined();
    expect(findOnPath('bwrap', { PATH: noBwrap })).toBeUndefined();
    expect(findOnPath('node', { PATH: noBwrap })).toBeDefined();
  });

  it('orca run and orca agent without a sandbox refuse in one line, exit 2, before anything starts', async () => {
    const repo = tinyRepo(env.dir('repo-none'));
    const refusal =
      'orca: no sandbox here (bwrap not found): install bubblewrap (apt-get install bubblewrap, dnf install bubblewrap); or say --sandbox off (ORCA_SANDBOX=off) to run agent code unsandboxed, as you';
    for (const args of [
      ['run', 'add a note', '--repo', repo.dir, '--script', ONE_NOTE, '--json'],
      ['run', 'add a note', '--repo', repo.dir, '--script', ONE_NOTE, '--sandbox', 'required'],
      ['agent', '--role', 'worker', 'write it', '--repo', repo.dir, '--script', ONE_NOTE],
    ]) {
      const run = await env.cli(args, { env: { PATH: noBwrap } });
      expect(run.code, run.stderr).toBe(2);
      expect(run.stdout).toBe('');
      // One line: no run id was announced, so no run, job or branch was made.
      expect(run.stderr.trim().split('\n')).toEqual([refusal]);
    }
    expect(git(repo.dir, 'branch', '--list', 'orca/*')).toBe('');
  });

  it(
    'orca run --sandbox off without bwrap says what off means in one line, runs, and shows sandbox "none" per task',
    async () => {
      const repo = tinyRepo(env.dir('repo-off-nobwrap'));
      const run = await env.cli(
        ['run', 'add a note', '--repo', repo.dir, '--script', ONE_NOTE, '--json', '--workers', '1', '--sandbox', 'off'],
        { env: { PATH: noBwrap }, deadlineMs: 280_000 },
      );
      expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
      const lines = run.stderr.split('\n').filter((line) => line.startsWith('orca: sandbox:'));
      expect(lines).toEqual([
        "orca: sandbox: off (--sandbox off): agent code runs as you: Bash, setup commands, hooks and integration checks run unsandboxed on this host, with your keys, your Claude Code configuration and orca's state (ORCA_HOME), and orca's Redis (127.0.0.1:6379), which takes no password",
      ]);
      const json = JSON.parse(run.stdout) as { status: string; run_id: string; tasks: Array<{ id: string; sandbox?: string }> };
      expect(json.status).toBe('PASS');
      expect(json.tasks.map((task) => [task.id, task.sandbox])).toEqual([['note', 'none']]);
      // The board shows it per task too.
      const status = JSON.parse((await env.cli(['status', json.run_id, '--json'])).stdout) as {
        tasks: Array<{ task_id: string; sandbox?: string }>;
      };
      expect(status.tasks.find((task) => task.task_id === 'note')?.sandbox).toBe('none');
    },
    SLOW_TEST_MS,
  );

  it(
    'orca run with bwrap says Bash runs in it, and shows sandbox "bwrap" per task',
    async () => {
      const repo = tinyRepo(env.dir('repo-bwrap'), MARKING_SETUP);
      const marks = env.dir('marks-bwrap');
      const run = await env.cli(['run', 'add a note', '--repo', repo.dir, '--script', ONE_NOTE, '--json', '--workers', '1'], {
        env: { MARK_DIR: marks },
        deadlineMs: 280_000,
      });
      expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
      expect(run.stderr).toMatch(
        /^orca: sandbox: bwrap \(\/\S+\/bwrap\): Bash, setup commands, language servers and integration checks run in it/m,
      );
      expect(run.stderr).toContain('hooks run unsandboxed, as Claude Code runs them');
      const json = JSON.parse(run.stdout) as { tasks: Array<{ id: string; sandbox?: string }> };
      expect(json.tasks.map((task) => [task.id, task.sandbox])).toEqual([['note', 'bwrap']]);
      // Setup ran in the sandbox, the task's and the integration worktree's alike.
      expect(readdirSync(marks)).toEqual([]);
    },
    SLOW_TEST_MS,
  );

  it(
    'the demo on a host without bwrap runs knowingly without one, says so, and passes',
    async () => {
      // Its sample repository goes under TMPDIR: this test's folder, removed with it.
      const child = spawn(process.execPath, [compiledEntry('coordinator/demo/runDemo.ts')], {
        env: env.processEnv({ PATH: noBwrap, TMPDIR: env.dir('demo-tmp') }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const [code] = (await once(child, 'close')) as [number | null];
      expect(code, output).toBe(0);
      expect(output.split('\n').filter((line) => line.startsWith('orca: sandbox:'))).toEqual([
        "orca: sandbox: off (the demo, knowingly: no sandbox here (bwrap not found), and it runs only orca's sample repository with the Scripted model): agent code runs as you: Bash, setup commands, hooks and integration checks run unsandboxed on this host, with your keys, your Claude Code configuration and orca's state (ORCA_HOME), and orca's Redis (127.0.0.1:6379), which takes no password",
      ]);
      expect(output).toContain('verification: PASS');
    },
    SLOW_TEST_MS,
  );

  it('a bad --sandbox or ORCA_SANDBOX value is one line naming the choices', async () => {
    const repo = tinyRepo(env.dir('repo-bad'));
    const flag = await env.cli(['run', 'x', '--repo', repo.dir, '--script', ONE_NOTE, '--sandbox', 'maybe']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('"maybe" is not a sandbox mode: expected one of auto, required, off');
    const variable = await env.cli(['run', 'x', '--repo', repo.dir, '--script', ONE_NOTE], { env: { ORCA_SANDBOX: 'maybe' } });
    expect(variable.code).toBe(2);
    expect(variable.stderr.trim()).toBe('orca: ORCA_SANDBOX: "maybe" is not a sandbox mode: expected one of auto, required, off');
  });

  it(
    '--sandbox off is said as off, and the task runs unsandboxed even where bwrap works',
    async () => {
      const repo = tinyRepo(env.dir('repo-off'), MARKING_SETUP);
      const marks = env.dir('marks-off');
      const run = await env.cli(
        ['run', 'add a note', '--repo', repo.dir, '--script', ONE_NOTE, '--json', '--workers', '1', '--sandbox', 'off'],
        { env: { MARK_DIR: marks }, deadlineMs: 280_000 },
      );
      expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
      expect(run.stderr).toMatch(/^orca: sandbox: off \(--sandbox off\): agent code runs as you/m);
      const json = JSON.parse(run.stdout) as { tasks: Array<{ sandbox?: string }> };
      expect(json.tasks.map((task) => task.sandbox)).toEqual(['none']);
      // Off everywhere the line names: the task's setup and the integration worktree's ran on the host.
      expect(readdirSync(marks)).toEqual(expect.arrayContaining(['setup-_integration', 'setup-note']));
    },
    SLOW_TEST_MS,
  );

  it(
    'a worker started with ORCA_SANDBOX=required and no bwrap says so at start and refuses the job, saying why',
    async () => {
      const repo = tinyRepo(env.dir('repo-worker'));
      const worker = await env.startWorker({ env: { PATH: noBwrap, ORCA_SANDBOX: 'required' } });
      expect(worker.stderr).toContain('no sandbox here (bwrap not found)');
      const runId = testRunId('sbx');
      const marker = path.join(repo.dir, 'WROTE.md');
      await env.queue.add(
        scriptedJob({
          runId,
          taskId: 't1',
          repo: repo.dir,
          base: repo.base,
          turns: [toolTurn('Write', { file_path: marker, content: 'x\n' }), reportTurn()],
        }),
      );
      const result = await env.result(`${runId}|t1|1`);
      expect(result.status).toBe('failed');
      expect(result.end_reason).toBe('sandbox');
      expect(result.detail).toMatch(/^worker \S+:\d+: no sandbox here \(bwrap not found\): install bubblewrap/);
      expect(result.sandbox).toBeUndefined();
      expect(existsSync(marker)).toBe(false);
      expect(existsSync(path.join(env.home, 'worktrees', runId))).toBe(false);
      expect(readFileSync(path.join(repo.dir, 'package.json'), 'utf8')).toContain('tiny');
    },
    SLOW_TEST_MS,
  );
});
