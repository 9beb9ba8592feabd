import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunJson } from '../../coordinator/run/runResult.js';
import type { ScriptTurn } from '../../shared/core/model/scriptFile.js';
import { git, makeRepo } from '../support/gitRepo.js';
import { OrcaTestEnv, SLOW_TEST_MS } from '../support/orcaEnv.js';

/**
 * The integration branch only ever holds verified work (coordinator/merge/landing.ts), in real
 * runs (real workers, Redis, git, node:test; the Scripted model): a weakened-assertion trap and a
 * zero-test trap end FAIL with the branch at the base; beside an honest task, only the honest work
 * is on the result; a rename split over two subtasks that cannot pass alone (`checks: []`) PASSes,
 * and the same plan with `checks` left out fails on the required gate.
 */

const TESTS = [
  "import test from 'node:test';",
  "import assert from 'node:assert/strict';",
  "import { add } from '../src/add.mjs';",
  '',
  "test('adds', () => {",
  '  assert.equal(add(1, 2), 3);',
  '});',
  '',
  "test('adds negatives', () => {",
  '  assert.equal(add(-1, -2), -3);',
  '});',
  '',
].join('\n');

/** The same tests with both assertions deleted: still two tests, both green whatever `add` does. */
const WEAKENED = TESTS.replace('  assert.equal(add(1, 2), 3);\n', '').replace('  assert.equal(add(-1, -2), -3);\n', '');

/** A test that refuses to run under a dot-folder, as express's file-serving tests do (send ignores dotfiles). */
const REFUSES_DOT_FOLDERS = [
  "import test from 'node:test';",
  "import assert from 'node:assert/strict';",
  '',
  "test('runs under no dot-folder', () => {",
  "  assert.deepEqual(process.cwd().split('/').filter((part) => part.startsWith('.')), []);",
  '});',
  '',
].join('\n');

function project(extra: Record<string, string> = {}): { repo: string; base: string } {
  const repo = makeRepo({
    ...extra,
    'package.json': JSON.stringify({ name: 'adder', private: true, type: 'module', scripts: { test: 'node --test test/' } }, null, 2),
    '.gitignore': 'node_modules/\n',
    'src/add.mjs': 'export const add = (a, b) => a + b;\n',
    'src/api.mjs': 'export function sum(a, b) {\n  return a + b;\n}\n',
    'src/use.mjs': "import { sum } from './api.mjs';\n\nexport const total = (xs) => xs.reduce(sum, 0);\n",
    'test/add.test.mjs': TESTS,
    'test/use.test.mjs': [
      "import test from 'node:test';",
      "import assert from 'node:assert/strict';",
      "import { total } from '../src/use.mjs';",
      '',
      "test('totals', () => {",
      '  assert.equal(total([1, 2, 3]), 6);',
      '});',
      '',
    ].join('\n'),
  });
  return { repo, base: git(repo, 'rev-parse', 'HEAD') };
}

interface Subtask {
  id: string;
  paths: string[];
  checks?: string[];
  dependsOn?: string[];
  turns: ScriptTurn[];
}

/** Reads the file first, as Write requires of a file that exists, then writes it whole. */
const write = (file_path: string, content: string): ScriptTurn => ({
  tools: [
    { name: 'Read', input: { file_path } },
    { name: 'Write', input: { file_path, content } },
  ],
});
const create = (file_path: string, content: string): ScriptTurn => ({ tools: [{ name: 'Write', input: { file_path, content } }] });
const bash = (command: string): ScriptTurn => ({ tools: [{ name: 'Bash', input: { command } }] });
const report = (claimed: Array<{ command: string; exit_code: number }>): ScriptTurn => ({
  tools: [{ name: 'Report', input: { summary: 'done', unresolved: [], claimed_checks: claimed } }],
});

/** The worker that breaks `add` and deletes the assertions that would say so; its own run of the tests is green. */
const WEAK: Subtask = {
  id: 'weak',
  paths: ['src/add.mjs', 'test/add.test.mjs'],
  turns: [
    write('src/add.mjs', 'export const add = (a, b) => a - b;\n'),
    write('test/add.test.mjs', WEAKENED),
    bash('npm test'),
    report([{ command: 'npm test', exit_code: 0 }]),
  ],
};

/** The worker that deletes the test files; its plan asked only for a syntax check, which passes. */
const EMPTIED: Subtask = {
  id: 'emptied',
  paths: ['src/add.mjs', 'test/**'],
  checks: ['node --check src/add.mjs'],
  turns: [
    write('src/add.mjs', 'export const add = (a, b) => a - b;\n'),
    bash('rm test/add.test.mjs test/use.test.mjs && echo "Tests to come." > test/NOTES.md'),
    bash('node --check src/add.mjs'),
    report([{ command: 'node --check src/add.mjs', exit_code: 0 }]),
  ],
};

const HONEST: Subtask = {
  id: 'honest',
  paths: ['src/sub.mjs', 'test/sub.test.mjs'],
  turns: [
    create('src/sub.mjs', 'export const sub = (a, b) => a - b;\n'),
    create(
      'test/sub.test.mjs',
      "import test from 'node:test';\nimport assert from 'node:assert/strict';\nimport { sub } from '../src/sub.mjs';\n\ntest('subtracts', () => {\n  assert.equal(sub(3, 1), 2);\n});\n",
    ),
    bash('npm test'),
    report([{ command: 'npm test', exit_code: 0 }]),
  ],
};

/** One half of a rename (`sum` to `add`): the API alone breaks its callers. */
const renameApi = (checks: string[] | undefined): Subtask => ({
  id: 'api',
  paths: ['src/api.mjs'],
  ...(checks ? { checks } : {}),
  turns: [write('src/api.mjs', 'export function add(a, b) {\n  return a + b;\n}\n'), bash('npm test'), report([])],
});

/** The other half: the callers alone import a name the API does not have yet. */
const renameCallers = (checks: string[] | undefined): Subtask => ({
  id: 'callers',
  paths: ['src/use.mjs'],
  ...(checks ? { checks } : {}),
  turns: [
    write('src/use.mjs', "import { add } from './api.mjs';\n\nexport const total = (xs) => xs.reduce(add, 0);\n"),
    bash('npm test'),
    report([]),
  ],
});

/** A Verification agent that runs the tests and says PASS, confirming no flagged change. */
const VERIFY_PASS: ScriptTurn[] = [
  bash('npm test'),
  {
    tools: [
      {
        name: 'Report',
        input: { verdict: 'PASS', checks: [{ command: 'npm test', exit_code: 0, result: 'all pass' }], problems: [], confirmations: [] },
      },
    ],
  },
];

function script(subtasks: Subtask[]): unknown {
  return {
    agents: [
      { when: { role: 'coordinator' }, turns: [{ tools: [{ name: 'Report', input: { questions: [] } }] }] },
      {
        when: { role: 'plan' },
        turns: [
          {
            tools: [
              {
                name: 'Report',
                input: {
                  subtasks: subtasks.map(({ id, paths, checks, dependsOn }) => ({
                    id,
                    title: id,
                    instructions: `Do ${id}.`,
                    paths,
                    depends_on: dependsOn ?? [],
                    ...(checks ? { checks } : {}),
                  })),
                  risks: [],
                },
              },
            ],
          },
        ],
      },
      ...subtasks.map((one) => ({ when: { role: 'worker', task: one.id }, turns: one.turns })),
      // A fix round's worker (after a failed verification) fixes nothing: it owns up.
      {
        when: { role: 'worker' },
        turns: [{ tools: [{ name: 'Report', input: { summary: 'nothing fixed', unresolved: ['not fixed'], claimed_checks: [] } }] }],
      },
      { when: { role: 'verification' }, turns: VERIFY_PASS },
    ],
  };
}

/**
 * Once the run's integration branch holds a merge, points it at a commit of someone else's (as a
 * user's `git update-ref` would); returns that commit. Fails if the run ends before.
 */
async function moveIntegrationBranchOnceMerged(repo: string, base: string, run: Promise<unknown>): Promise<string> {
  let ended = false;
  void run.finally(() => {
    ended = true;
  });
  const other = git(repo, 'commit-tree', '-p', base, '-m', 'someone else', `${base}^{tree}`);
  while (!ended) {
    const [ref, head] = git(repo, 'for-each-ref', '--format=%(refname) %(objectname)', 'refs/heads/orca/*/integration').split(' ');
    if (ref && head && head !== base) {
      git(repo, 'update-ref', ref, other, head);
      return other;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the run ended before its integration branch held a merge');
}

describe('the result branch holds verified work only, in real runs', () => {
  let env: OrcaTestEnv;

  beforeAll(async () => {
    env = await OrcaTestEnv.open({ shared: true });
  }, SLOW_TEST_MS);

  afterAll(async () => {
    await env?.close();
  }, SLOW_TEST_MS);

  async function run(
    name: string,
    subtasks: Subtask[],
    extra: Record<string, string> = {},
    args: string[] = [],
  ): Promise<{ json: RunJson; repo: string; stderr: string; code: number | null }> {
    const { repo } = project(extra);
    const file = path.join(env.dir('scripts'), `${name}.json`);
    writeFileSync(file, JSON.stringify(script(subtasks)));
    const cli = await env.cli(['run', `scripted: ${name}`, '--repo', repo, '--script', file, '--json', '--workers', '2', ...args], {
      deadlineMs: 240_000,
    });
    try {
      return { json: JSON.parse(cli.stdout) as RunJson, repo, stderr: cli.stderr, code: cli.code };
    } catch {
      throw new Error(`orca run printed no JSON (exit ${cli.code}):\n${cli.stdout}\n${cli.stderr}`);
    }
  }

  const task = (json: RunJson, id: string) => json.tasks.find((one) => one.id === id)!;

  it(
    'ends the weakened-assertion trap FAIL, the branch at the base, the merge taken off named and kept on its task branch',
    async () => {
      const { json, repo, stderr } = await run('weak', [WEAK]);
      expect(json.status, stderr).toBe('FAIL');
      expect(json.head).toBe(json.base);
      expect(git(repo, 'rev-parse', json.integration_branch)).toBe(json.base);
      const weak = task(json, 'weak');
      expect(weak.status).toBe('failed');
      expect(weak.rolled_back_merge).toMatch(/^[0-9a-f]{40}$/);
      expect(weak.detail).toContain('the Verification agent did not confirm its change to the tests');
      expect(weak.detail).toContain(`its work stays on ${weak.branch}`);
      expect(git(repo, 'show', `${weak.commit}:src/add.mjs`)).toContain('a - b');
      expect(json.reason).toBe(json.detail);
      expect(json.reason).toMatch(/^nothing verified is on the integration branch: it is at the base \(weak failed\)/);
    },
    SLOW_TEST_MS,
  );

  it(
    'ends the zero-test trap FAIL: the integration checks after its merge ran no test, and the merge was taken off',
    async () => {
      const { json, repo, stderr } = await run('emptied', [EMPTIED]);
      expect(json.status, stderr).toBe('FAIL');
      expect(git(repo, 'rev-parse', json.integration_branch)).toBe(json.base);
      const emptied = task(json, 'emptied');
      expect(emptied.status).toBe('failed');
      expect(emptied.rolled_back_merge).toMatch(/^[0-9a-f]{40}$/);
      expect(emptied.detail).toMatch(/the integration checks failed on the merged tree: zero_tests: /);
      // Nothing was left to verify: no Verification agent was started.
      expect(json.verification).toBeNull();
      expect(json.reason).toBe(
        'nothing verified is on the integration branch: it is at the base (emptied failed); every merge failed the integration checks and was taken off',
      );
    },
    SLOW_TEST_MS,
  );

  it(
    'ends PARTIAL beside an honest task, with only the honest work on the result branch',
    async () => {
      const { json, repo, stderr } = await run('two', [WEAK, HONEST]);
      expect(json.status, stderr).toBe('PARTIAL');
      expect(task(json, 'honest').status).toBe('verified');
      expect(task(json, 'weak')).toMatchObject({ status: 'failed', rolled_back_merge: expect.stringMatching(/^[0-9a-f]{40}$/) });
      expect(json.reason).toMatch(/^not on the result branch: weak failed; /);
      expect(git(repo, 'rev-parse', json.integration_branch)).toBe(json.head);
      expect(git(repo, 'show', `${json.head}:src/sub.mjs`)).toContain('a - b');
      expect(git(repo, 'show', `${json.head}:src/add.mjs`)).toContain('a + b');
      expect(git(repo, 'show', `${json.head}:test/add.test.mjs`)).toBe(TESTS.trimEnd());
      // Nothing of the weakening is reachable from the result, not even through history.
      expect(git(repo, 'log', '--format=%H', json.head)).not.toContain(task(json, 'weak').commit);
    },
    SLOW_TEST_MS,
  );

  it(
    'PASSes the honest twin, its task verified after its merge',
    async () => {
      const { json, repo, stderr } = await run('honest', [HONEST]);
      expect(json.status, stderr).toBe('PASS');
      expect(task(json, 'honest')).toMatchObject({ status: 'verified', checked_alone: true });
      // The JSON names the integration checks and why they were chosen.
      expect(json.checks).toEqual([{ command: 'npm test', source: 'detected: package.json has a test script' }]);
      expect(task(json, 'honest').detail).toMatch(
        /^merged into the integration branch as [0-9a-f]{12} and verified: the integration checks passed/,
      );
      expect(git(repo, 'rev-parse', json.integration_branch)).toBe(json.head);
      expect(json.head).not.toBe(json.base);
    },
    SLOW_TEST_MS,
  );

  it(
    'PASSes a project whose tests refuse a dot-folder in their path, in its worker and in integration',
    async () => {
      const { json, stderr } = await run('dot-folders', [HONEST], { 'test/paths.test.mjs': REFUSES_DOT_FOLDERS });
      expect(json.status, `${json.reason}\n${stderr}`).toBe('PASS');
      // The worker's own required run passed in its worktree, and the integration checks in theirs.
      expect(task(json, 'honest').gates?.find((gate) => gate.name === 'required')).toMatchObject({ ok: true });
      expect(json.verification?.checks).toEqual([{ command: 'npm test', exit_code: 0, tests_executed: 5 }]);
    },
    SLOW_TEST_MS,
  );

  it(
    'ends FAIL with its reason, never a crash, when the integration branch moves under the run',
    async () => {
      // The second task waits on the first's merge, then takes its time: meanwhile someone else moves the branch.
      const second: Subtask = {
        id: 'later',
        paths: ['src/later.mjs'],
        dependsOn: ['honest'],
        turns: [
          { ...create('src/later.mjs', 'export const later = 1;\n'), latency_ms: 4_000 },
          bash('npm test'),
          report([{ command: 'npm test', exit_code: 0 }]),
        ],
      };
      const { repo, base } = project();
      const file = path.join(env.dir('scripts'), 'moved.json');
      writeFileSync(file, JSON.stringify(script([HONEST, second])));
      const running = env.cli(['run', 'scripted: moved', '--repo', repo, '--script', file, '--json', '--workers', '2'], {
        deadlineMs: 240_000,
      });
      const moved = await moveIntegrationBranchOnceMerged(repo, base, running);
      const cli = await running;
      const json = JSON.parse(cli.stdout) as RunJson;
      expect(cli.code, cli.stderr).toBe(1);
      expect(json.status).toBe('FAIL');
      expect(json.reason).toMatch(
        /^refs\/heads\/orca\/.+\/integration moved under the run: the coordinator recorded [0-9a-f]{12} and it is at /,
      );
      expect(json.reason).toContain(moved.slice(0, 12));
      expect(git(repo, 'rev-parse', json.integration_branch)).toBe(moved);
    },
    SLOW_TEST_MS,
  );

  it(
    'PASSes a rename split over two subtasks that cannot be checked alone (checks: [])',
    async () => {
      const { json, repo, stderr } = await run('rename', [renameApi([]), renameCallers([])]);
      expect(json.status, `${json.reason}\n${stderr}`).toBe('PASS');
      for (const id of ['api', 'callers']) expect(task(json, id)).toMatchObject({ status: 'verified', checked_alone: false });
      expect(git(repo, 'show', `${json.head}:src/use.mjs`)).toContain('import { add }');
      expect(git(repo, 'show', `${json.head}:src/api.mjs`)).toContain('function add');
    },
    SLOW_TEST_MS,
  );

  it(
    'FAILs the same rename with `checks` left out, naming the required gate',
    async () => {
      const { json, repo, stderr } = await run('rename-required', [renameApi(undefined), renameCallers(undefined)]);
      expect(json.status, stderr).toBe('FAIL');
      expect(git(repo, 'rev-parse', json.integration_branch)).toBe(json.base);
      for (const id of ['api', 'callers']) {
        const one = task(json, id);
        expect(one).toMatchObject({ status: 'failed', checked_alone: true });
        expect(one.detail).toMatch(/required: worker \w+: required check `npm test` exited 1 in its latest run/);
      }
    },
    SLOW_TEST_MS,
  );
});
