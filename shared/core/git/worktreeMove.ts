import { existsSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gitAt } from './git.js';
import { plainAdminFolder } from './plainWorktree.js';
import { commonGitDir } from './repoLock.js';

/**
 * Moves a linked worktree of `repo` from `from` to `to` (which must not exist), as `git worktree
 * move` does, without a git process when the worktree is the plain kind git itself would move
 * with two writes: its folder renamed, then its admin folder's `gitdir` pointed at the new place.
 * That is all git 2.x's move does for such a worktree (builtin/worktree.c: rename, then
 * update_worktree_location); its `.git` file names the admin folder by absolute path and does not
 * change. Anything else is left to git: a `.git` file naming its admin folder relatively
 * (worktree.useRelativePaths), an admin folder that does not name this worktree back, a locked
 * worktree, one with submodules (git refuses those), a target that exists. For callers holding
 * the repository's worktree lock (repoLock.ts), as every pool change is.
 */
export async function moveWorktree(repo: string, from: string, to: string): Promise<void> {
  const admin = plainAdminFolder(from, await commonGitDir(repo));
  if (!admin || existsSync(to)) {
    await gitAt(repo).raw(['worktree', 'move', from, to]);
    return;
  }
  renameSync(from, to);
  const gitdir = path.join(admin, 'gitdir');
  // Renamed into place, as git's own lock-file write is: a reader never sees half a path.
  writeFileSync(`${gitdir}.orca-${process.pid}`, `${path.join(realpathSync(to), '.git')}\n`);
  renameSync(`${gitdir}.orca-${process.pid}`, gitdir);
}
