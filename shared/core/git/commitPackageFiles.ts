import { gitAt } from './git.js';
import { commonGitDir } from './repoLock.js';

/** Kept per repository and commit; a commit's tree never changes, so an entry is never stale, only old. */
const listed = new Map<string, Promise<string[]>>();
const KEPT = 16;

/**
 * The `package.json` files below the root of `commit`'s tree (forward slashes), asked of git once
 * per repository, commit and process: every worktree a run's jobs start at the same base lists the
 * same ones. For a worktree whose index is exactly that commit's tree (made or checked clean at it),
 * this is what `git ls-files -- ':(glob)**\/package.json'` in it would say, without a git process
 * on each job's way to its agent.
 */
export function commitPackageFiles(repo: string, commit: string): Promise<string[]> {
  return commonGitDir(repo).then((gitDir) => {
    const key = `${gitDir}\0${commit}`;
    let found = listed.get(key);
    if (!found) {
      found = gitAt(repo)
        .raw(['ls-tree', '-r', '-z', '--name-only', commit])
        .then((out) => out.split('\0').filter((file) => file === 'package.json' || file.endsWith('/package.json')));
      // A failure is not remembered: the next job asks again.
      found.catch(() => listed.delete(key));
      listed.set(key, found);
      if (listed.size > KEPT) listed.delete(listed.keys().next().value!);
    }
    return found;
  });
}
