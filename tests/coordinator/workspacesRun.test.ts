import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunJson } from '../../coordinator/run/runResult.js';
import { packageRoot } from '../../shared/core/runtime/compiledEntry.js';
import { readRunEvents } from '../../shared/infra/board/runEvents.js';
import { git, writeFiles } from '../support/gitRepo.js';
import { OrcaTestEnv, SLOW_TEST_MS } from '../support/orcaEnv.js';

const scriptOf = (name: string) => path.join(packageRoot(), 'tests', 'fixtures', 'scripts', `${name}.json`);

/**
 * An npm-workspaces project (as remark is): the root's tests import the workspace packages by
 * name, through `node_modules/x` → `../packages/x`; y's test writes caches into node_modules as
 * vitest (`.vite-temp`) and find-cache-dir (`.cache`) do.
 */
const PROJECT = {
  'package.json': JSON.stringify(
    { name: 'mono', private: true, type: 'module', workspaces: ['packages/*', 'packages/@acme/*'], scripts: { test: 'node --test test/' } },
    null,
    2,
  ),
  '.gitignore': 'node_modules/\n',
  'packages/x/package.json': JSON.stringify({ name: 'x', version: '1.0.0', type: 'module', main: 'index.js' }),
  'packages/x/index.js': 'export const add = (a, b) => a + b;\n',
  'packages/@acme/y/package.json': JSON.stringify({ name: '@acme/y', version: '1.0.0', type: 'module', main: 'index.js' }),
  'packages/@acme/y/index.js': "export const hello = () => 'hello';\n",
  'test/x.test.mjs': [
    "import test from 'node:test';",
    "import assert from 'node:assert/strict';",
    "import { add } from 'x';",
    "test('adds', () => assert.equal(add(1, 2), 3));",
    "test('adds negatives', () => assert.equal(add(-1, -2), -3));",
    '',
  ].join('\n'),
  'test/y.test.mjs': [
    "import test from 'node:test';",
    "import assert from 'node:assert/strict';",
    "import { mkdirSync, writeFileSync } from 'node:fs';",
    "import { hello } from '@acme/y';",
    "test('greets, writing caches into node_modules', () => {",
    "  mkdirSync('node_modules/.vite-temp', { recursive: true });",
    "  writeFileSync(`node_modules/.vite-temp/config.${process.pid}.mjs`, 'export default {};');",
    "  mkdirSync('node_modules/.cache/y', { recursive: true });",
    "  writeFileSync('node_modules/.cache/y/results.json', '{}');",
    "  assert.equal(hello(), 'hello');",
    '});',
    '',
  ].join('\n'),
};

/** The project installed by npm (offline: only the workspaces to link) in the user's checkout, committed with its lock file. */
function workspacesRepo(env: OrcaTestEnv, name: string): string {
  const repo = path.join(env.dir('repos'), name);
  writeFiles(repo, PROJECT);
  execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: repo, stdio: 'pipe' });
  git(env.root, 'init', '-q', '-b', 'main', repo);
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'the project');
  expect(git(repo, 'status', '--porcelain')).toBe('');
  return repo;
}

async function orcaRun(env: OrcaTestEnv, repo: string, script: string): Promise<{ code: number | null; json: RunJson; stderr: string }> {
  const run = await env.cli(['run', 'change packages/x', '--repo', repo, '--script', scriptOf(script), '--json', '--check', 'npm test'], {
    deadlineMs: 240_000,
  });
  try {
    return { code: run.code, json: JSON.parse(run.stdout) as RunJson, stderr: run.stderr };
  } catch {
    throw new Error(`orca run printed no JSON (exit ${run.code}):\n${run.stdout}\n${run.stderr}`);
  }
}

/** The run's integration checks (the host's `check` events), and what the worker's Bash printed for each command it ran. */
async function runChecks(env: OrcaTestEnv, runId: string) {
  const entries = (await readRunEvents(env.redis, env.keys, runId, '0', 10_000)).map(({ entry }) => entry);
  const integration = entries
    .filter((entry) => entry.event.type === 'check')
    .map((entry) => ({ command: entry.event.command, exit: entry.event.exit_code, tests: entry.event.tests_executed }));
  const commands = new Map<unknown, unknown>();
  const worker = new Map<unknown, string>();
  for (const { task_id, event } of entries) {
    if (task_id !== 'x') continue;
    if (event.type === 'tool_call' && event.name === 'Bash') commands.set(event.id, (event.input as { command: string }).command);
    if (event.type === 'tool_result' && commands.has(event.id)) worker.set(commands.get(event.id), String(event.preview));
  }
  return { integration, worker };
}

describe('a run on an npm-workspaces project tests the worktree’s packages, not the checkout’s', () => {
  it(
    'an honest change to packages/x is PASS with every test counted; tools write their caches into node_modules in the sandbox',
    async () => {
      const env = await OrcaTestEnv.open();
      const repo = workspacesRepo(env, 'honest');
      const { code, json, stderr } = await orcaRun(env, repo, 'workspaces-honest');
      expect(code, `${stderr}\n${JSON.stringify(json, null, 1)}`).toBe(0);
      expect(json.status).toBe('PASS');
      expect(json.verification?.checks).toEqual([{ command: 'npm test', exit_code: 0, tests_executed: 3 }]);
      const { integration, worker } = await runChecks(env, json.run_id);
      // Run after the merge and again by the final verification: each on the merged tree, each whole.
      expect(integration.length).toBeGreaterThan(0);
      for (const one of integration) expect(one).toEqual({ command: 'npm test', exit: 0, tests: 3 });
      expect(worker.get('npm test')).toMatch(/^ok 1 - adds$/m);
      // The caches went into the worktrees' own node_modules, never the checkout's.
      expect(execFileSync('ls', ['-A', path.join(repo, 'node_modules')], { encoding: 'utf8' }).split('\n')).not.toContain('.cache');
    },
    SLOW_TEST_MS,
  );

  it(
    'a change that breaks packages/x is seen by the worker’s tests and by the integration checks: not PASS',
    async () => {
      const env = await OrcaTestEnv.open();
      const repo = workspacesRepo(env, 'breaking');
      const { json } = await orcaRun(env, repo, 'workspaces-break');
      expect(json.status).not.toBe('PASS');
      const { integration, worker } = await runChecks(env, json.run_id);
      // The worker's own run of the whole suite fails on its break (its plan check, y's test, passes)…
      expect(worker.get('node --test test/y.test.mjs')).toMatch(/^ok 1 - greets/m);
      expect(worker.get('npm test')).toMatch(/^not ok 1 - adds$/m);
      // …and so does the integration check on the merged tree.
      expect(integration).toEqual([{ command: 'npm test', exit: 1, tests: 3 }]);
      // The user's checkout still passes: it was never what the tests ran.
      expect(execFileSync('npm', ['test'], { cwd: repo, encoding: 'utf8', stdio: 'pipe' })).toMatch(/# pass 3/);
    },
    SLOW_TEST_MS,
  );
});
