import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunJson } from '../../coordinator/run/runResult.js';
import { packageRoot } from '../../shared/core/runtime/compiledEntry.js';
import { readRunEvents } from '../../shared/infra/board/runEvents.js';
import { git, writeFiles } from '../support/gitRepo.js';
import { OrcaTestEnv, SLOW_TEST_MS } from '../support/orcaEnv.js';

const SCRIPT = path.join(packageRoot(), 'tests', 'fixtures', 'scripts', 'ready-worktree.json');

/** The project's tests: they need the gitignored .env.test, the file the setup generates, and .env.orca. */
const PROJECT = {
  'package.json': `${JSON.stringify({ name: 'ready', private: true, type: 'module', scripts: { test: 'node --test test/' } }, null, 2)}\n`,
  '.gitignore': '.env.test\ngenerated/\n',
  'scripts/gen.mjs':
    "import { mkdirSync, writeFileSync } from 'node:fs';\nmkdirSync('generated', { recursive: true });\nwriteFileSync('generated/answer.mjs', 'export const answer = 42;\\n');\nconsole.log('generated generated/answer.mjs');\n",
  'test/app.test.mjs': [
    "import assert from 'node:assert/strict';",
    "import { readFileSync } from 'node:fs';",
    "import { test } from 'node:test';",
    "test('reads the gitignored .env.test', () => assert.match(readFileSync('.env.test', 'utf8'), /^API_URL=http:\\/\\/localhost:\\d+$/m));",
    "test('uses the generated module', async () => assert.equal((await import('../generated/answer.mjs')).answer, 42));",
    "test('.env.orca names the run and the task', () => assert.match(readFileSync('.env.orca', 'utf8'), /^ORCA_RUN_ID=\\S+$/m));",
    '',
  ].join('\n'),
};
const FEATURES = {
  '.worktreeinclude': '# copied into every worktree\n.env.test\n',
  'orca.json': `${JSON.stringify({ setup: ['node scripts/gen.mjs'] }, null, 2)}\n`,
};

/** The fixture repository: the project committed, `.env.test` only in the user's checkout (gitignored). */
function fixtureRepo(env: OrcaTestEnv, name: string, extra: Record<string, string>): string {
  const repo = path.join(env.dir('repos'), name);
  writeFiles(repo, { ...PROJECT, ...extra });
  git(env.root, 'init', '-q', '-b', 'main', repo);
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'the project');
  writeFiles(repo, { '.env.test': 'API_URL=http://localhost:4000\n' });
  expect(git(repo, 'status', '--porcelain')).toBe('');
  return repo;
}

async function orcaRun(
  env: OrcaTestEnv,
  repo: string,
  extra: string[] = [],
): Promise<{ code: number | null; json: RunJson; stderr: string }> {
  const run = await env.cli(['run', 'a scripted task', '--repo', repo, '--script', SCRIPT, '--json', '--check', 'npm test', ...extra], {
    deadlineMs: 240_000,
  });
  try {
    return { code: run.code, json: JSON.parse(run.stdout) as RunJson, stderr: run.stderr };
  } catch {
    throw new Error(`orca run printed no JSON (exit ${run.code}):\n${run.stdout}\n${run.stderr}`);
  }
}

async function events(env: OrcaTestEnv, runId: string) {
  return (await readRunEvents(env.redis, env.keys, runId, '0', 10_000)).map(({ entry }) => entry);
}

describe('worktrees made ready before the agent: .worktreeinclude, orca.json setup, .env.orca', () => {
  it(
    'passes a run whose tests need a gitignored .env.test and a generated file; without the two features the same run fails',
    async () => {
      const env = await OrcaTestEnv.open();
      const ready = fixtureRepo(env, 'with-features', FEATURES);
      const { code, json, stderr } = await orcaRun(env, ready);
      expect(code, `${stderr}\n${JSON.stringify(json, null, 1)}`).toBe(0);
      expect(json.status).toBe('PASS');
      expect(json.verification?.checks).toEqual([{ command: 'npm test', exit_code: 0, tests_executed: 3 }]);
      // The task's commit holds its own change only: nothing orca put in the worktree.
      const note = json.tasks.find((task) => task.id === 'note')!;
      expect(git(ready, 'show', '--name-only', '--format=', note.commit!).split('\n')).toEqual(['NOTES.md']);
      const all = await events(env, json.run_id);
      const setup = all.filter((e) => e.event.type === 'setup');
      // The worker's and the Verification agent's worktrees each ran it, before their first model call.
      expect(setup.map((e) => [e.task_id, e.event.command, e.event.outcome, e.event.exit_code])).toEqual(
        expect.arrayContaining([
          ['note', 'node scripts/gen.mjs', 'ok', 0],
          ['_verify-1', 'node scripts/gen.mjs', 'ok', 0],
        ]),
      );
      const noteSetup = setup.find((e) => e.task_id === 'note')!;
      expect(readFileSync(String(noteSetup.event.log), 'utf8')).toContain('generated generated/answer.mjs');
      const firstSession = all.findIndex((e) => e.task_id === 'note' && e.event.type === 'session_start');
      expect(all.indexOf(noteSetup)).toBeLessThan(firstSession);
      // The integration worktree was made ready too, its setup recorded as a check.
      // Its setup once, then the checks after the merge and in the final verification, each passing.
      const checks = all.filter((e) => e.event.type === 'check').map((e) => [e.event.command, e.event.exit_code]);
      expect(checks[0]).toEqual(['setup: node scripts/gen.mjs', 0]);
      expect(checks.length).toBeGreaterThan(1);
      for (const check of checks.slice(1)) expect(check).toEqual(['npm test', 0]);
      // The user's checkout is untouched; `.env.orca` is excluded locally, never committed.
      expect(git(ready, 'status', '--porcelain')).toBe('');
      expect(readFileSync(path.join(git(ready, 'rev-parse', '--absolute-git-dir'), 'info', 'exclude'), 'utf8')).toContain('/.env.orca');

      const bare = fixtureRepo(env, 'without-features', {});
      const without = await orcaRun(env, bare);
      expect(without.code).toBe(1);
      expect(without.json.status).toBe('FAIL');
      expect(without.json.tasks.find((task) => task.id === 'note')?.status).toBe('failed');
      const refused = (await events(env, without.json.run_id)).filter(
        (e) => e.event.task_id === 'note' && e.event.type === 'gate' && e.event.ok === false,
      );
      expect(refused.map((e) => e.event.name)).toContain('claims');
    },
    SLOW_TEST_MS,
  );

  it(
    'fails a task whose setup command exits 1 before any model call, with the output’s tail in the JSON detail',
    async () => {
      const env = await OrcaTestEnv.open();
      const failing = JSON.stringify({
        setup: [
          "node -e \"console.log('generator: reading schema.json'); console.error('generator: schema.json is missing'); process.exit(1)\"",
        ],
      });
      const repo = fixtureRepo(env, 'failing-setup', { ...FEATURES, 'orca.json': failing });
      const { code, json } = await orcaRun(env, repo);
      expect(code).toBe(1);
      expect(json.status).toBe('FAIL');
      const note = json.tasks.find((task) => task.id === 'note')!;
      expect(note.status).toBe('failed');
      expect(note.detail).toMatch(/^setup_failed: setup command `node -e .*` exited 1 \(log .*setup\.log\): /);
      expect(note.detail).toContain('generator: reading schema.json');
      expect(note.detail).toContain('generator: schema.json is missing');
      const all = await events(env, json.run_id);
      // No model call: no session started for the task, its results used no turn and no token.
      expect(all.filter((e) => e.task_id === 'note' && e.event.type === 'session_start')).toEqual([]);
      const results = all.filter((e) => e.event.type === 'task_result' && e.event.task_id === 'note');
      expect(results.length).toBeGreaterThan(0);
      for (const result of results) expect([result.event.turns, result.event.end_reason]).toEqual([0, 'setup_failed']);
    },
    SLOW_TEST_MS,
  );
});
