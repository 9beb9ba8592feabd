import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { IntegrationBranch } from '../coordinator/merge/integration.js';
import { orcaBranch } from '../shared/core/git/orcaBranch.js';
import { median, round } from './stats.js';

const exec = promisify(execFile);

/**
 * Merging 32 task branches, one new file each, into a run's integration branch on the large
 * repository: orca's IntegrationBranch (one `--no-ff` merge per task, serialised, with the commit
 * count before and the changed files after) beside bare `git merge --no-ff` of the same branches
 * into a second worktree at the same base. Each repetition starts both from fresh worktrees,
 * made untimed; they alternate which goes first. The coordinator merges one task at a time (its
 * one serial part), so merges per second here bound how fast a run's finished tasks can land.
 */
export const MERGE_TARGET_RATIO = 1.05;

export interface MergeResult {
  merge_32_ms: number;
  git_merge_32_ms: number;
  per_merge_ms: number;
  /** The serial merge loop's throughput: orca's merges per second, and bare git's. */
  merges_per_s: number;
  git_merges_per_s: number;
  branches: number;
  repetitions: number;
}

export async function mergeBenchmark(
  repo: { dir: string; base: string },
  workRoot: string,
  options: { branches?: number; repetitions?: number } = {},
): Promise<MergeResult> {
  const count = options.branches ?? 32;
  const repetitions = options.repetitions ?? 3;
  const orca: number[] = [];
  const bare: number[] = [];
  for (let rep = 0; rep < repetitions; rep += 1) {
    const runId = `merge-bench-${process.pid}-${rep}`;
    const branches = await makeTaskBranches(repo, runId, count);
    // As a run with the sandbox on (the default) merges: no integration checks between merges here.
    const integration = new IntegrationBranch(repo.dir, runId, path.join(workRoot, `${runId}-integration`), { agentsConfined: true });
    await integration.open(repo.base);
    const refDir = path.join(workRoot, `${runId}-reference`);
    await git(repo.dir, 'worktree', 'add', '--quiet', '-b', orcaBranch(runId, 'reference'), refDir, repo.base);
    const runOrca = async () => {
      const start = performance.now();
      for (const branch of branches) {
        const outcome = await integration.merge(branch, `Merge ${branch}`);
        if (outcome.kind !== 'merged') throw new Error(`merging ${branch} gave ${outcome.kind}`);
      }
      orca.push(performance.now() - start);
    };
    const runBare = async () => {
      const start = performance.now();
      for (const branch of branches)
        await git(
          refDir,
          '-c',
          'user.name=bench',
          '-c',
          'user.email=bench@orca.invalid',
          'merge',
          '--no-ff',
          '--quiet',
          '-m',
          `Merge ${branch}`,
          branch,
        );
      bare.push(performance.now() - start);
    };
    if (rep % 2 === 0) {
      await runOrca();
      await runBare();
    } else {
      await runBare();
      await runOrca();
    }
    for (const dir of [integration.dir, refDir]) await git(repo.dir, 'worktree', 'remove', '--force', '--force', dir);
    await git(repo.dir, 'branch', '--quiet', '-D', integration.branch, orcaBranch(runId, 'reference'), ...branches);
  }
  const merged = median(orca);
  return {
    merge_32_ms: round(merged),
    git_merge_32_ms: round(median(bare)),
    per_merge_ms: round(merged / count, 1),
    merges_per_s: round((count * 1000) / merged, 2),
    git_merges_per_s: round((count * 1000) / median(bare), 2),
    branches: count,
    repetitions,
  };
}

/** `count` branches off the base, each adding one file, made with plumbing (no checkout of the large tree). */
async function makeTaskBranches(repo: { dir: string; base: string }, runId: string, count: number): Promise<string[]> {
  const index = path.join(repo.dir, '.git', `bench-index-${runId}`);
  const env = {
    ...process.env,
    GIT_INDEX_FILE: index,
    GIT_AUTHOR_NAME: 'bench',
    GIT_AUTHOR_EMAIL: 'bench@orca.invalid',
    GIT_COMMITTER_NAME: 'bench',
    GIT_COMMITTER_EMAIL: 'bench@orca.invalid',
  };
  const branches: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const branch = orcaBranch(runId, `t${String(i).padStart(2, '0')}`);
    await exec('git', ['read-tree', repo.base], { cwd: repo.dir, env });
    const blob = await gitInput(repo.dir, `task ${i} of ${runId}\n`, ['hash-object', '-w', '--stdin']);
    await exec('git', ['update-index', '--add', '--cacheinfo', `100644,${blob},tasks/t${String(i).padStart(2, '0')}.txt`], {
      cwd: repo.dir,
      env,
    });
    const tree = (await exec('git', ['write-tree'], { cwd: repo.dir, env })).stdout.trim();
    const commit = (await exec('git', ['commit-tree', tree, '-p', repo.base, '-m', `task ${i}`], { cwd: repo.dir, env })).stdout.trim();
    await git(repo.dir, 'branch', branch, commit);
    branches.push(branch);
  }
  await exec('rm', ['-f', index]);
  return branches;
}

async function git(cwd: string, ...args: string[]): Promise<string> {
  return (await exec('git', args, { cwd, maxBuffer: 16 * 1024 * 1024 })).stdout;
}

function gitInput(cwd: string, input: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile('git', args, { cwd }, (error, stdout) => (error ? reject(error) : resolve(stdout.trim())));
    child.stdin!.end(input);
  });
}
