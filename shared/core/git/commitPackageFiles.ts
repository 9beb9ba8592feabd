import { ByCommit } from './byCommit.js';
import { gitAt } from './git.js';
import { commonGitDir } from './repoLock.js';

/** Kept per repository and commit; a commit's tree never changes, so an entry is never stale, only old. */
const listed = new ByCommit<string[]>(16);

/**
 * The `package.json` files below the root of `commit`'s tree (forward slashes), asked of git once
 * per repository, commit and process: every worktree a run's jobs start at the same base lists the
 * same ones. For a worktree whose index is exactly that commit's tree (made or checked clean at it),
 * this is what `git ls-files -- ':(glob)**\/package.json'` in it would say, without a git process
 * on each job's way to its agent.
 */
export async function commitPackageFiles(repo: string, commit: string): Promise<string[]> {
  const gitDir = await commonGitDir(repo);
  return listed.get(
    commit,
    () =>
      gitAt(repo)
        .raw(['ls-tree', '-r', '-z', '--name-only', commit])
        .then((out) => out.split('\0').filter((file) => file === 'package.json' || file.endsWith('/package.json'))),
    gitDir,
  );
}
