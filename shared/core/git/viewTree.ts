import { chmodSync, existsSync, lstatSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { gitAt } from './git.js';
import { withRepoLock } from './repoLock.js';

/**
 * A read-only view's files on disk: made read-only (no write bit for anyone, folders included, so
 * nothing can be added either) where no sandbox keeps an agent from writing them, and writable
 * again before the view is removed. The `.git` file that links the view to its repository is left
 * alone: git needs it. Links are not followed (chmod would change what they point to).
 */
export function setViewWritable(dir: string, writable: boolean): void {
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (folder === dir && entry.name === '.git') continue;
      const full = path.join(folder, entry.name);
      if (entry.isSymbolicLink()) continue;
      if (entry.isDirectory()) {
        // Writable before going in (to restore what is inside), read-only after (what is inside is done).
        if (writable) chmodSync(full, lstatSync(full).mode | 0o200);
        walk(full);
        if (!writable) chmodSync(full, lstatSync(full).mode & ~0o222);
      } else {
        const mode = lstatSync(full).mode;
        chmodSync(full, writable ? mode | 0o200 : mode & ~0o222);
      }
    }
  };
  if (writable) chmodSync(dir, lstatSync(dir).mode | 0o200);
  walk(dir);
  if (!writable) chmodSync(dir, lstatSync(dir).mode & ~0o222);
}

/**
 * What is wrong with a view of `commit`, or undefined when it is exactly that commit: HEAD moved, or
 * files changed, added or removed since it was made (ignored files count: an agent's reads see them).
 */
export async function viewProblem(dir: string, commit: string): Promise<string | undefined> {
  const head = (await gitAt(dir).raw(['rev-parse', 'HEAD'])).trim();
  if (head !== commit) return `it is at ${head}, not at ${commit}`;
  const status = (await gitAt(dir).raw(['status', '--porcelain', '--ignored', '--untracked-files=all'])).split('\n').filter(Boolean);
  if (status.length === 0) return undefined;
  const shown = status.slice(0, 5).map((line) => line.trim());
  const more = status.length > 5 ? ` and ${status.length - 5} more` : '';
  return `its files differ from the commit (${shown.join(', ')}${more})`;
}

/** Removes a view (made writable first); one that is no worktree of a repository any more is a plain folder now. */
export async function removeView(dir: string): Promise<void> {
  if (!existsSync(dir)) return;
  setViewWritable(dir, true);
  let repo: string | undefined;
  try {
    repo = path.resolve(dir, (await gitAt(dir).raw(['rev-parse', '--git-common-dir'])).trim());
  } catch {
    repo = undefined;
  }
  if (repo === undefined) {
    rmSync(dir, { recursive: true, force: true });
    return;
  }
  await withRepoLock(repo, async () => {
    try {
      await gitAt(repo).raw(['worktree', 'remove', '--force', '--force', dir]);
    } catch {
      rmSync(dir, { recursive: true, force: true });
    }
    await gitAt(repo).raw(['worktree', 'prune']);
  });
}

/** Removes every view under a run's folder of views (`<repoKey>/<commit>`), then the folder. Returns the views removed. */
export async function removeViewsUnder(root: string): Promise<string[]> {
  if (!existsSync(root)) return [];
  const removed: string[] = [];
  for (const repoKey of readdirSync(root)) {
    const folder = path.join(root, repoKey);
    for (const commit of readdirSync(folder)) {
      const dir = path.join(folder, commit);
      await removeView(dir);
      removed.push(dir);
    }
  }
  rmSync(root, { recursive: true, force: true });
  return removed;
}
