import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import picomatch from 'picomatch';
import { hashBytes, type InheritedFileState, ReadFileState } from './readFileState.js';
import { isInside } from './workspace.js';

/**
 * A parent's file state handed to a child agent: the entries the task needs (paths under the
 * globs it owns, or all), relative to the repository, with the hash the parent saw.
 */
export function exportFileState(state: ReadFileState, root: string, globs?: readonly string[]): InheritedFileState[] {
  const match = globs && globs.length > 0 ? picomatch([...globs], { dot: true }) : () => true;
  return state
    .all()
    .filter((entry) => isInside(entry.path, root))
    .map((entry) => ({
      path: path.relative(root, entry.path).split(path.sep).join('/'),
      hash: entry.hash,
      partial: entry.isPartialView,
      ...(entry.isPartialView ? { seen: entry.seen ?? [] } : {}),
    }))
    .filter((entry) => match(entry.path));
}

/**
 * Rebases inherited entries onto the child's worktree: an entry survives only if the file there
 * has exactly the bytes the parent saw, and is marked `inherited`, with the lines the parent saw
 * when it saw part of the file: Edit holds it to the same rule as the child's own reads (every
 * match inside lines seen), and a whole-file Write is never allowed on it. The child's state is
 * its own: nothing it reads reaches the parent.
 */
export function rebaseFileState(entries: readonly InheritedFileState[], root: string): { state: ReadFileState; dropped: string[] } {
  const state = new ReadFileState();
  const dropped: string[] = [];
  for (const entry of entries) {
    const file = path.resolve(root, entry.path);
    if (!isInside(file, root)) {
      dropped.push(entry.path);
      continue;
    }
    let bytes: Buffer;
    let mtimeMs: number;
    try {
      bytes = readFileSync(file);
      mtimeMs = statSync(file).mtimeMs;
    } catch {
      dropped.push(entry.path); // Missing in this worktree: nothing to inherit.
      continue;
    }
    if (hashBytes(bytes) !== entry.hash) {
      dropped.push(entry.path);
      continue;
    }
    state.set({
      path: file,
      hash: entry.hash,
      mtimeMs,
      isPartialView: entry.partial,
      ...(entry.partial ? { seen: entry.seen ?? [] } : {}),
      origin: 'inherited',
    });
  }
  return { state, dropped };
}
