import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../shared/core/runtime/compiledEntry.js';
import { commitFiles, git } from '../support/gitRepo.js';
import { type OrcaTestEnv as Env, OrcaTestEnv, SLOW_TEST_MS } from '../support/orcaEnv.js';
import { deleteKeys } from '../support/redis.js';

const ONE_NOTE = path.join(packageRoot(), 'tests', 'fixtures', 'scripts', 'one-note.json');

/** A small repository whose `npm test` runs real tests in a second (node:test, nothing to install). */
function tinyRepo(dir: string): { dir: string; base: string } {
  git(dir, 'init', '-q', '-b', 'main');
  const base = commitFiles(
    dir,
    {
      'package.json': `${JSON.stringify({ name: 'tiny', private: true, type: 'module', scripts: { test: 'node --test test/' } }, null, 2)}\n`,
      'src/sum.js': 'export function sum(a, b) {\n  return a + b;\n}\n',
      'test/sum.test.js': [
        "import assert from 'node:assert/strict';",
        "import test from 'node:test';",
        "import { sum } from '../src/sum.js';",
        "test('adds', () => assert.equal(sum(2, 3), 5));",
        "test('adds negatives', () => assert.equal(sum(-2, -3), -5));",
        '',
      ].join('\n'),
      'README.md': '# tiny\n',
    },
    'initial',
  );
  return { dir, base };
}

/** A script for `orca agent --role worker`: writes `files` (reading any that exist first), then ends with a Report or, `fail`, without one. */
function agentScript(env: Env, name: string, turns: unknown[]): string {
  const file = path.join(env.dir('scripts'), `${name}.json`);
  writeFileSync(file, JSON.stringify({ agents: [{ when: { role: 'worker' }, turns }] }));
  return file;
}

const writeTurn = (file_path: string, content: string) => ({ tools: [{ name: 'Write', input: { file_path, content } }] });
const REPORT = { tools: [{ name: 'Report', input: { summary: 'done', unresolved: [], claimed_checks: [] } }] };

async function orcaRun(env: Env, repo: string): Promise<{ run_id: string; status: string; integration_branch: string; head: string }> {
  const run = await env.cli(
    ['run', 'add a note', '--repo', repo, '--script', ONE_NOTE, '--check', 'npm test', '--json', '--workers', '1'],
    {
      deadlineMs: 280_000,
    },
  );
  expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
  return JSON.parse(run.stdout);
}

async function orcaAgent(
  env: Env,
  repo: string,
  script: string,
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<{ runId: string; code: number | null; stderr: string }> {
  const run = await env.cli(['agent', '--role', 'worker', 'write it', '--repo', repo, '--script', script], { env: extraEnv });
  const runId = /^orca: run (\S+)$/m.exec(run.stderr)?.[1];
  if (!runId) throw new Error(`orca agent printed no run id (exit ${run.code}):\n${run.stdout}\n${run.stderr}`);
  return { runId, code: run.code, stderr: run.stderr };
}

async function clean(env: Env, cwd: string, args: string[] = [], extraEnv: NodeJS.ProcessEnv = {}) {
  const run = await env.cli(['clean', ...args], { cwd, env: extraEnv });
  expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
  return run.stdout;
}

async function resultOf(env: Env, runId: string): Promise<{ state: string; merged_into: string[] }> {
  const status = await env.cli(['status', runId, '--json']);
  expect(status.code, status.stderr).toBe(0);
  return JSON.parse(status.stdout).result;
}

const branches = (repo: string) => git(repo, 'branch', '--list', '--format=%(refname:short)').split('\n').filter(Boolean).sort();

/** Worktrees of the repository that hold one of orca's branches. */
const orcaCheckouts = (repo: string) =>
  git(repo, 'worktree', 'list', '--porcelain')
    .split('\n')
    .filter((line) => line.startsWith('branch refs/heads/orca/'));

describe('a finished run hands its result over, and orca clean never loses work', { timeout: SLOW_TEST_MS * 2 }, () => {
  it('after a PASS run the result can be switched to at once; clean keeps it until it is merged, or --results', async () => {
    const env = await OrcaTestEnv.open();
    const { dir: repo, base } = tinyRepo(env.dir('tiny'));
    const [first, second] = await Promise.all([orcaRun(env, repo), orcaRun(env, repo)]);
    for (const run of [first, second]) expect(run.status).toBe('PASS');

    // Handed over: no worktree of orca's holds a branch, the user switches to the result at once.
    expect(orcaCheckouts(repo)).toEqual([]);
    expect(readdirSync(path.join(env.home, 'worktrees'))).toEqual([]);
    git(repo, 'switch', '--quiet', first.integration_branch);
    expect(readFileSync(path.join(repo, 'NOTES.md'), 'utf8')).toContain('integer cents');
    git(repo, 'switch', '--quiet', 'main');
    expect(git(repo, 'rev-parse', 'HEAD')).toBe(base);

    // The board says the result is not merged yet.
    expect(await resultOf(env, first.run_id)).toMatchObject({ state: 'not_merged', merged_into: [] });
    const status = await env.cli(['status', first.run_id]);
    expect(status.stdout).toContain(`result ${first.integration_branch} at ${first.head.slice(0, 12)}: not merged yet`);

    // Clean keeps both results and removes the task branches.
    const firstClean = await clean(env, repo);
    expect(firstClean).toContain(`removed branch orca/${first.run_id}/note in ${repo} (a task branch;`);
    expect(firstClean).toContain(`kept ${first.integration_branch} in ${repo} at ${first.head.slice(0, 12)}: the run's result, not merged`);
    expect(branches(repo)).toEqual(['main', first.integration_branch, second.integration_branch].sort());

    // Merged into main, the first result goes at the next clean; the second stays.
    git(repo, 'merge', '--quiet', '--no-ff', '-m', 'take the note', first.integration_branch);
    expect(await resultOf(env, first.run_id)).toMatchObject({ state: 'merged', merged_into: ['main'] });
    const secondClean = await clean(env, repo);
    expect(secondClean).toContain(`removed branch ${first.integration_branch} in ${repo} (the result, merged into main;`);
    expect(secondClean).toContain(`kept ${second.integration_branch}`);
    expect(branches(repo)).toEqual(['main', second.integration_branch].sort());
    expect(await resultOf(env, first.run_id)).toMatchObject({ state: 'removed' });

    // --results removes one not merged at once, saying how to restore the commits only it had.
    const results = await clean(env, repo, ['--results']);
    expect(results).toContain(
      `removed branch ${second.integration_branch} in ${repo} (the result, not merged: --results; at ${second.head}`,
    );
    expect(results).toContain(`\`git branch ${second.integration_branch} ${second.head}\` restores it`);
    expect(branches(repo)).toEqual(['main']);
    // Nothing of either run is left, so neither is recorded any more.
    expect(readdirSync(path.join(env.home, 'runs'))).toEqual([]);
    expect(git(repo, 'status', '--porcelain')).toBe('');
  });

  it("saves a failed agent's uncommitted change under refs/orca/wip before its worktree goes; --wip removes it", async () => {
    const env = await OrcaTestEnv.open();
    const { dir: repo, base } = tinyRepo(env.dir('tiny'));
    const script = agentScript(env, 'fails', [
      { tools: [{ name: 'Read', input: { file_path: 'README.md' } }] },
      writeTurn('README.md', '# tiny\n\nhalf rewritten\n'),
      writeTurn('notes/half.txt', 'half done\n'),
      { text: 'I stop here.' },
    ]);
    const { runId, code, stderr } = await orcaAgent(env, repo, script);
    expect(code).toBe(1);
    const worktree = path.join(env.home, 'worktrees', runId, 'worker');
    const ref = `refs/orca/wip/${runId}/worker`;
    // Kept for inspection, detached: its branch is free for the user.
    expect(stderr).toContain(
      `kept ${worktree} for inspection (detached; its uncommitted changes are saved to ${ref} when orca clean removes it)`,
    );
    expect(readFileSync(path.join(worktree, 'notes', 'half.txt'), 'utf8')).toBe('half done\n');
    expect(orcaCheckouts(repo)).toEqual([]);

    const first = await clean(env, repo);
    expect(first).toMatch(
      new RegExp(`saved the uncommitted changes of ${worktree} \\(2 file\\(s\\)\\) to ${ref} at [0-9a-f]{40}: \`git checkout ${ref}\``),
    );
    expect(first).toContain(`removed worktree ${worktree}`);
    expect(existsSync(worktree)).toBe(false);
    // The saved change checks out: both files, on top of the commit the agent started from.
    const look = path.join(env.dir('look'), 'wip');
    git(repo, 'worktree', 'add', '--quiet', '--detach', look, ref);
    expect(readFileSync(path.join(look, 'notes', 'half.txt'), 'utf8')).toBe('half done\n');
    expect(readFileSync(path.join(look, 'README.md'), 'utf8')).toBe('# tiny\n\nhalf rewritten\n');
    expect(git(repo, 'rev-parse', `${ref}^`)).toBe(base);
    git(repo, 'worktree', 'remove', look);
    // Not a branch: `git branch` shows only the user's own (the failed agent's branch, with no commit, is gone).
    expect(branches(repo)).toEqual(['main']);
    expect(git(repo, 'rev-parse', 'HEAD')).toBe(base);
    expect(git(repo, 'status', '--porcelain')).toBe('');

    // Kept by the next clean, and said; --wip removes it, with how to bring it back.
    const sha = git(repo, 'rev-parse', ref);
    const second = await clean(env, repo);
    expect(second).toContain(`kept ${ref} in ${repo} at ${sha.slice(0, 12)}: uncommitted work saved from a worktree`);
    expect(git(repo, 'rev-parse', ref)).toBe(sha);
    const third = await clean(env, repo, ['--wip']);
    expect(third).toContain(
      `removed saved work ${ref} in ${repo} (--wip; at ${sha}; 1 commit(s) on it are on no other branch or ref: \`git update-ref ${ref} ${sha}\` restores it)`,
    );
    expect(git(repo, 'for-each-ref', 'refs/orca/')).toBe('');
  });

  it('cleans the repository it is run in and leaves the others alone; --all lists and cleans every one', async () => {
    const env = await OrcaTestEnv.open();
    const a = tinyRepo(env.dir('alpha')).dir;
    const b = tinyRepo(env.dir('beta')).dir;
    const script = agentScript(env, 'writes', [writeTurn('NOTE.txt', 'note\n'), REPORT]);
    const inA = await orcaAgent(env, a, script);
    const inB = await orcaAgent(env, b, script);
    for (const run of [inA, inB]) expect(run.code, run.stderr).toBe(0);
    expect(branches(a)).toEqual(['main', `orca/${inA.runId}/worker`]);
    expect(branches(b)).toEqual(['main', `orca/${inB.runId}/worker`]);

    const here = await clean(env, a, ['--results']);
    expect(here).toContain(`removed branch orca/${inA.runId}/worker in ${a}`);
    expect(here).toContain('1 of other repositories not looked at (--repo DIR, or --all)');
    expect(here).not.toContain(inB.runId);
    expect(branches(a)).toEqual(['main']);
    expect(branches(b)).toEqual(['main', `orca/${inB.runId}/worker`]);

    const all = await clean(env, a, ['--all', '--results']);
    const lines = all.split('\n');
    // The repositories first, then what is done in them.
    expect(lines[0]).toMatch(/^orca clean --all: \d+ repositor(y|ies) orca knows:$/);
    const listed = lines.slice(
      1,
      lines.findIndex((line, i) => i > 0 && !line.startsWith('  ')),
    );
    expect(listed).toEqual(expect.arrayContaining([`  ${a}`, `  ${b}`]));
    expect(all).toContain(`removed branch orca/${inB.runId}/worker in ${b}`);
    expect(branches(b)).toEqual(['main']);
  });

  it("two ORCA_HOMEs (and two ORCA_PREFIXes) on one Redis and one repository: no clean touches another's runs", async () => {
    const env = await OrcaTestEnv.open();
    const { dir: repo } = tinyRepo(env.dir('tiny'));
    const otherHome = env.dir('other-home');
    const otherPrefix = `${env.prefix}-b`;
    const script = agentScript(env, 'writes', [writeTurn('NOTE.txt', 'note\n'), REPORT]);
    const installations = {
      first: {},
      secondHome: { ORCA_HOME: otherHome },
      secondPrefix: { ORCA_PREFIX: otherPrefix },
    } satisfies Record<string, NodeJS.ProcessEnv>;
    try {
      const runs: Record<string, string> = {};
      for (const [name, extra] of Object.entries(installations)) {
        const run = await orcaAgent(env, repo, script, extra);
        expect(run.code, run.stderr).toBe(0);
        runs[name] = run.runId;
      }
      const branch = (name: string) => `orca/${runs[name]}/worker`;
      expect(branches(repo)).toEqual(['main', ...Object.keys(runs).map(branch)].sort());

      // Each installation's clean removes its own run's branch, says why it leaves the others, and touches nothing of theirs.
      const order = ['secondHome', 'first', 'secondPrefix'] as const;
      for (const [index, name] of order.entries()) {
        const out = await clean(env, repo, ['--results', '--older-than', '0s'], installations[name]);
        expect(out).toContain(`removed branch ${branch(name)} in ${repo}`);
        for (const other of order.slice(index + 1)) {
          expect(out).toContain(`left run ${runs[other]} alone: `);
          expect(out).not.toContain(`removed branch ${branch(other)}`);
        }
        expect(branches(repo)).toEqual(['main', ...order.slice(index + 1).map(branch)].sort());
      }
      const first = await clean(env, repo, [], {});
      expect(first).not.toContain('left run');
    } finally {
      await deleteKeys(env.redis, `${otherPrefix}:*`);
    }
  });
});
