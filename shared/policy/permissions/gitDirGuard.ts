import { statSync } from 'node:fs';
import path from 'node:path';
import { gitCommonDir, ownGitDir } from '../../core/git/gitFolders.js';
import { type EntryState, readEntry, readTree, restoreEntry, sameEntry } from './fileSnapshot.js';

/**
 * The parts of a worktree's git folders that decide what git runs and where it writes: the
 * worktree's `.git` pointer file, the repository's shared `config`, `hooks/` and `info/` (a
 * worktree shares them with the user's checkout: `git config core.hooksPath`, a hook planted
 * through `git rev-parse --git-common-dir`), and the worktree's own `HEAD` (the branch the host
 * commits on), `config.worktree`, `commondir` and `gitdir`; and what decides which objects and history
 * git sees (`objects/info/alternates`, grafts, `shallow`). Kept byte for byte at the start; any change is put back at once,
 * before the host runs git again, and named.
 */
export class GitDirGuard {
  private constructor(
    private readonly watched: { root: string; tree: boolean }[],
    private readonly start: Map<string, EntryState>,
  ) {}

  /** The guard for the worktree at `root` (a linked worktree or a checkout of its own). */
  static open(root: string): GitDirGuard {
    const dotGit = path.join(root, '.git');
    const watched: { root: string; tree: boolean }[] = [{ root: dotGit, tree: false }];
    let common = dotGit;
    if (statSync(dotGit).isFile()) {
      const own = ownGitDir(root);
      if (own === undefined) throw new Error(`${dotGit} is not a git pointer file ("gitdir: …")`);
      // HEAD too: pointed at another branch, the host's commit would land there.
      for (const name of ['HEAD', 'config.worktree', 'commondir', 'gitdir']) watched.push({ root: path.join(own, name), tree: false });
      // Without a commondir file the gitdir is a repository of its own.
      common = gitCommonDir(own);
    }
    watched.push({ root: path.join(common, 'config'), tree: false });
    // What changes which objects and history git sees: borrowed object stores, grafts, a shallow boundary.
    for (const name of ['objects/info/alternates', 'objects/info/http-alternates', 'objects/info/grafts', 'shallow']) {
      watched.push({ root: path.join(common, name), tree: false });
    }
    for (const name of ['hooks', 'info']) watched.push({ root: path.join(common, name), tree: true });
    return new GitDirGuard(watched, snapshot(watched));
  }

  /** The watched paths (the pointer file, the config files, the hooks and info folders). */
  paths(): string[] {
    return this.watched.map((entry) => entry.root);
  }

  /**
   * Puts back whatever changed since the start; returns each path that had changed, and whether
   * it could be put back.
   */
  restore(): { path: string; restored: boolean }[] {
    const now = snapshot(this.watched);
    const changed: { path: string; restored: boolean }[] = [];
    // Entries that were not there at the start go first, deepest first; then the start's come back, folders before files.
    const added = [...now.keys()].filter((file) => !this.start.has(file) && now.get(file)!.kind !== 'missing');
    for (const file of added.sort((a, b) => b.length - a.length)) {
      changed.push({ path: file, restored: restoreEntry(file, { kind: 'missing' }) });
    }
    for (const [file, state] of [...this.start.entries()].sort(([a], [b]) => a.length - b.length)) {
      const current = now.get(file) ?? readEntry(file);
      if (sameEntry(current, state)) continue;
      changed.push({ path: file, restored: restoreEntry(file, state) });
    }
    return changed;
  }
}

function snapshot(watched: { root: string; tree: boolean }[]): Map<string, EntryState> {
  const state = new Map<string, EntryState>();
  for (const entry of watched) {
    if (entry.tree) readTree(entry.root, state);
    else state.set(entry.root, readEntry(entry.root));
  }
  return state;
}
