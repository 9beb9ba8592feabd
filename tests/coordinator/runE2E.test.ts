import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSampleRepo } from '../../coordinator/demo/sampleRepo.js';
import type { RunJson } from '../../coordinator/run/runResult.js';
import { packageRoot } from '../../shared/core/runtime/compiledEntry.js';
import { readRunEvents } from '../../shared/infra/board/runEvents.js';
import { git } from '../support/gitRepo.js';
import { OrcaTestEnv, SLOW_TEST_MS } from '../support/orcaEnv.js';

const SCRIPTS = path.join(packageRoot(), 'tests', 'fixtures', 'scripts');
const DEMO_SCRIPT = path.join(packageRoot(), 'coordinator', 'demo', 'demo-script.json');

async function orcaRun(
  env: OrcaTestEnv,
  repo: string,
  script: string,
  extra: string[] = [],
): Promise<{ code: number | null; json: RunJson; stderr: string }> {
  const run = await env.cli(['run', 'a scripted task', '--repo', repo, '--script', script, '--json', '--workers', '2', ...extra], {
    deadlineMs: 240_000,
  });
  let json: RunJson;
  try {
    json = JSON.parse(run.stdout) as RunJson;
  } catch {
    throw new Error(`orca run printed no JSON (exit ${run.code}):\n${run.stdout}\n${run.stderr}`);
  }
  return { code: run.code, json, stderr: run.stderr };
}

/** Checks out a commit in a throwaway worktree and runs the sample's tests there, independently of orca. */
function testsPassAt(repo: string, commit: string, dir: string): void {
  git(repo, 'worktree', 'add', '--quiet', '--detach', dir, commit);
  execFileSync('ln', ['-s', path.join(repo, 'node_modules'), path.join(dir, 'node_modules')]);
  execFileSync('npm', ['test', '--silent'], { cwd: dir, stdio: 'pipe' });
}

async function runEvents(env: OrcaTestEnv, runId: string) {
  return (await readRunEvents(env.redis, env.keys, runId, '0', 10_000)).map(({ entry }) => entry);
}

describe('orca run, end to end with real workers, Redis and git', () => {
  it(
    'runs the demo: three workers refactor in parallel, their branches merge, the tests pass on the merged tree',
    async () => {
      const env = await OrcaTestEnv.open();
      const repo = createSampleRepo(path.join(env.dir('repo'), 'shop-lib')).dir;
      const { code, json, stderr } = await orcaRun(env, repo, DEMO_SCRIPT);
      expect(stderr.split('\n')[0]).toBe(`orca: run ${json.run_id}`);
      expect(code, stderr).toBe(0);
      expect(json.status).toBe('PASS');
      expect(json.tasks.map((t) => [t.id, t.status]).sort()).toEqual([
        ['cart', 'verified'],
        ['invoice', 'verified'],
        ['report', 'verified'],
      ]);
      expect(json.verification?.verdict).toBe('PASS');
      // Each task says why it ended so, and its last report passed every gate, its required check included.
      for (const task of json.tasks) {
        expect(task.detail).toMatch(
          /^merged into the integration branch as [0-9a-f]{12} and verified: the integration checks passed on the merged tree \(/,
        );
        expect(task.gates?.map((gate) => [gate.name, gate.ok])).toEqual(
          ['zero_tests', 'stale', 'target', 'assertions', 'claims', 'required'].map((name) => [name, true]),
        );
      }
      // The demo's findings all hold at the base commit.
      expect(json.findings.map((finding) => finding.verified)).toEqual([true, true, true, true]);
      // The merged tree has all three changes, and the user's checkout is untouched.
      for (const module of ['cart', 'invoice', 'report']) {
        const source = git(repo, 'show', `${json.integration_branch}:src/${module}.ts`);
        expect(source).toContain("import { formatMoney } from './money.js';");
        expect(source).not.toContain('toDollars');
      }
      expect(git(repo, 'rev-parse', 'HEAD')).toBe(json.base);
      expect(git(repo, 'status', '--porcelain')).toBe('');
      expect(git(repo, 'rev-parse', json.integration_branch)).toBe(json.head);
      testsPassAt(repo, json.head, path.join(env.dir('check'), 'tree'));
    },
    SLOW_TEST_MS,
  );

  it(
    'serialises two subtasks that own the same file, and says why',
    async () => {
      const env = await OrcaTestEnv.open();
      const repo = createSampleRepo(path.join(env.dir('repo'), 'shop-lib')).dir;
      const { code, json, stderr } = await orcaRun(env, repo, path.join(SCRIPTS, 'same-file.json'));
      expect(code, stderr).toBe(0);
      expect(json.tasks.map((t) => t.status)).toEqual(['verified', 'verified']);
      const events = await runEvents(env, json.run_id);
      const note = events.find((e) => e.event.type === 'dag_note');
      expect(note?.event).toMatchObject({ task_id: 'cents', message: expect.stringContaining('src/money.ts') });
      // `cents` started from the integration head after `header` merged: its branch contains that merge.
      const headerMerge = events.find((e) => e.event.type === 'merge' && e.event.task_id === 'header')!.event.commit as string;
      const cents = json.tasks.find((t) => t.id === 'cents')!;
      expect(() => git(repo, 'merge-base', '--is-ancestor', headerMerge, cents.commit!)).not.toThrow();
      const money = git(repo, 'show', `${json.integration_branch}:src/money.ts`);
      expect(money).toContain('/** Money formatting for the shop. */');
      expect(money).toContain('export function parseMoney');
    },
    SLOW_TEST_MS,
  );

  it(
    'resolves a forced merge conflict with a conflict worker, keeping both changes',
    async () => {
      const env = await OrcaTestEnv.open();
      const repo = createSampleRepo(path.join(env.dir('repo'), 'shop-lib')).dir;
      const { code, json, stderr } = await orcaRun(env, repo, path.join(SCRIPTS, 'merge-conflict.json'));
      expect(code, stderr).toBe(0);
      expect(json.tasks.map((t) => t.status)).toEqual(['verified', 'verified']);
      const merges = (await runEvents(env, json.run_id)).filter((e) => e.event.type === 'merge').map((e) => e.event.outcome);
      expect(merges).toEqual(['merged', 'conflict', 'resolved']);
      // Each task may change only its own paths: the conflict is the note both added (globs the plan could not tell apart).
      expect(git(repo, 'show', `${json.integration_branch}:notes/ab.md`)).toBe('cart\ninvoice');
      expect(git(repo, 'show', `${json.integration_branch}:src/cart.ts`)).toContain('// Formats cents for display (cart).');
      expect(git(repo, 'show', `${json.integration_branch}:src/invoice.ts`)).toContain('// Formats cents for display (invoice).');
      // No work is lost: both original task branches are still there.
      for (const task of json.tasks) expect(git(repo, 'branch', '--list', `orca/${json.run_id}/${task.id}`)).not.toBe('');
    },
    SLOW_TEST_MS,
  );

  it(
    'lets a failing task block only its dependants; independent work merges and the run is PARTIAL',
    async () => {
      const env = await OrcaTestEnv.open();
      const repo = createSampleRepo(path.join(env.dir('repo'), 'shop-lib')).dir;
      const { code, json } = await orcaRun(env, repo, path.join(SCRIPTS, 'failing-task.json'));
      expect(code).toBe(1);
      expect(json.status).toBe('PARTIAL');
      expect(Object.fromEntries(json.tasks.map((t) => [t.id, t.status]))).toEqual({
        base: 'failed',
        'uses-base': 'blocked',
        independent: 'verified',
      });
      expect(git(repo, 'show', `${json.integration_branch}:src/report.ts`)).toContain('in the sales report');
      expect(json.tasks.find((t) => t.id === 'uses-base')?.detail).toBe('blocked: base failed');
      expect(json.tasks.find((t) => t.id === 'base')?.detail).toMatch(/^no_tool_use: /);
      // A problem in a file the merged tree does not have is kept, marked unverified with the reason; the other is verified.
      expect(json.verification?.problems).toEqual([
        {
          file: 'src/legacy-report.ts',
          what: 'the old report module the task mentions is gone, and nothing says so',
          verified: false,
          reason: expect.stringMatching(/^src\/legacy-report\.ts does not exist in the merged tree [0-9a-f]{12}$/),
        },
        { file: 'src/report.ts', line: 2, what: 'the reworded comment no longer says where formatMoney lives', verified: true },
      ]);
    },
    SLOW_TEST_MS,
  );

  it(
    'does not merge a worker whose report claims a test run it never made; the honest one merges',
    async () => {
      const env = await OrcaTestEnv.open();
      const repo = createSampleRepo(path.join(env.dir('repo'), 'shop-lib')).dir;
      const { code, json } = await orcaRun(env, repo, path.join(SCRIPTS, 'claimed-not-run.json'));
      expect(code).toBe(1);
      expect(json.status).toBe('PARTIAL');
      expect(Object.fromEntries(json.tasks.map((t) => [t.id, t.status]))).toEqual({ honest: 'verified', liar: 'failed' });
      const events = await runEvents(env, json.run_id);
      const refusals = events.filter(
        (e) => e.task_id === 'liar' && e.event.type === 'notice' && String(e.event.message).startsWith('Report refused by the gates'),
      );
      // Refused twice with the claims gate named; the third time it may end, and its gates fail it.
      expect(refusals).toHaveLength(2);
      expect(String(refusals[0]!.event.message)).toContain('claims');
      const liarGates = events
        .filter((e) => e.event.task_id === 'liar' && e.event.type === 'gate' && e.event.ok === false)
        .map((e) => e.event.name);
      expect(liarGates).toContain('claims');
      expect(git(repo, 'show', `${json.integration_branch}:src/cart.ts`)).not.toContain('for the cart');
    },
    SLOW_TEST_MS,
  );
});
