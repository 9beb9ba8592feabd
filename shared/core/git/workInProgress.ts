import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { excludeSpecs } from './commit.js';
import { gitAt } from './git.js';
import { orcaOwnedPaths } from './worktreeStartState.js';

export interface SavedWork {
  ref: string;
  commit: string;
  /** The files that differ from the worktree's HEAD. */
  files: string[];
  /** False when the ref already held exactly this tree: nothing new was written. */
  written: boolean;
}

/**
 * Commits what a worktree holds beyond its HEAD (changed, deleted and new files; ignored files and
 * the dependency folders orca linked in stay out) to `ref`, without touching the worktree, its
 * index or its branch: the commit is built in a temporary index. Its first parent is HEAD; a
 * different save already under `ref` becomes its second parent, so no earlier save is lost.
 * Returns undefined when the worktree has nothing beyond HEAD.
 */
export async function saveWorkInProgress(dir: string, ref: string, message: string): Promise<SavedWork | undefined> {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'orca-wip-'));
  try {
    const git = gitAt(dir, undefined, { GIT_INDEX_FILE: path.join(scratch, 'index') });
    // A folder that is no worktree (its records pruned) would answer for a repository around it.
    const top = (await git.raw(['rev-parse', '--show-toplevel'])).trim();
    if (realpathSync(top) !== realpathSync(dir)) throw new Error(`${dir} is not a git worktree (git answers for ${top})`);
    const head = (await git.raw(['rev-parse', 'HEAD'])).trim();
    await git.raw(['read-tree', head]);
    const excluded = await excludeSpecs(dir, orcaOwnedPaths(dir));
    await git.raw(['add', '--all', '--', '.', ...excluded]);
    const tree = (await git.raw(['write-tree'])).trim();
    if (tree === (await git.raw(['rev-parse', `${head}^{tree}`])).trim()) return undefined;
    const files = (await git.raw(['diff', '--name-only', head, tree])).split('\n').filter(Boolean);
    const previous = (await git.raw(['for-each-ref', '--format=%(objectname)', ref])).trim();
    if (previous && (await git.raw(['rev-parse', `${previous}^{tree}`])).trim() === tree) {
      return { ref, commit: previous, files, written: false };
    }
    const parents = previous ? ['-p', head, '-p', previous] : ['-p', head];
    const commit = (await git.raw(['commit-tree', tree, ...parents, '-m', message])).trim();
    // Checked against what was read: two savers at once never drop each other's commit silently.
    await git.raw(['update-ref', '-m', 'orca: work in progress saved', ref, commit, previous]);
    return { ref, commit, files, written: true };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
