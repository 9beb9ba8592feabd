import { gitAt } from './git.js';
import { ORCA_BRANCHES } from './orcaBranch.js';

/**
 * How many commits of `tip` no ref of the repository reaches once the refs in `leaving` (full
 * names) are gone: the commits that only a printed sha could bring back. HEADs of worktrees do
 * not count, so the answer errs towards more, never fewer.
 */
export async function commitsOnlyIn(repo: string, tip: string, leaving: string[]): Promise<number> {
  const excluded = leaving.map((ref) => `--exclude=${ref}`);
  return Number((await gitAt(repo).raw(['rev-list', '--count', tip, '--not', ...excluded, '--glob=refs/*'])).trim());
}

/** The refs (full names) under `patterns` (for-each-ref patterns) whose history contains `commit`. */
export async function refsContaining(repo: string, commit: string, patterns: string[]): Promise<string[]> {
  const out = await gitAt(repo).raw(['for-each-ref', '--contains', commit, '--format=%(refname)', ...patterns]);
  return out.split('\n').filter(Boolean);
}

/**
 * The branches (not orca's own, `orca/…`) and remote-tracking refs that hold `commit`, by short
 * name: where a result counts as merged, or pushed.
 */
export async function mergedInto(repo: string, commit: string): Promise<string[]> {
  return (await refsContaining(repo, commit, ['refs/heads/', 'refs/remotes/']))
    .filter((ref) => !ref.startsWith(ORCA_BRANCHES) && !ref.endsWith('/HEAD'))
    .map((ref) => ref.replace(/^refs\/(heads|remotes)\//, ''));
}
