import { existsSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { namedGitDir } from './gitFolders.js';

/**
 * A linked worktree of the plain kind, which git moves and removes with file operations alone: its
 * `.git` file names its admin folder by absolute path, that folder is `worktrees/<id>` of the
 * repository's common git folder and names this worktree back (its `gitdir`), it is not locked, and
 * it has no submodules. Returns that admin folder; undefined for any other worktree (the main one,
 * a `.git` pointer naming a folder elsewhere, a relative one: worktree.useRelativePaths), which the
 * caller leaves to git.
 */
export function plainAdminFolder(dir: string, commonDir: string): string | undefined {
  try {
    const admin = namedGitDir(readFileSync(path.join(dir, '.git'), 'utf8'));
    if (admin === undefined || !path.isAbsolute(admin)) return undefined;
    if (path.dirname(admin) !== path.join(realpathSync(commonDir), 'worktrees')) return undefined;
    if (['locked', 'modules'].some((name) => existsSync(path.join(admin, name))) || existsSync(path.join(dir, '.gitmodules')))
      return undefined;
    const named = readFileSync(path.join(admin, 'gitdir'), 'utf8').trim();
    return named === path.join(realpathSync(dir), '.git') ? admin : undefined;
  } catch {
    // Not readable as a plain linked worktree: git decides (and says why it cannot).
    return undefined;
  }
}
