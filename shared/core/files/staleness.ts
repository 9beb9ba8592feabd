import { type FileStateEntry, hashBytes, type ReadFileState } from './readFileState.js';

/** What the session knows of a file, compared with the file as it is now. */
export type Freshness =
  | { kind: 'unread' }
  | { kind: 'partial'; entry: FileStateEntry }
  | { kind: 'changed'; entry: FileStateEntry; mtimeMs: number }
  | { kind: 'current'; entry: FileStateEntry };

/**
 * Whether what the session saw of `file` is still what is on disk. The bytes' hash decides, not
 * the mtime: a timestamp can move with no change (touch, checkout, a formatter that found
 * nothing) and can stay put through one (coarse timestamps, a quick rewrite, `cp -p`). When only
 * the mtime moved, the entry is refreshed to the new mtime: the bytes are still the ones seen.
 */
export function checkFreshness(state: ReadFileState, file: { path: string; hash: string; mtimeMs: number }): Freshness {
  const entry = state.get(file.path);
  if (!entry) return { kind: 'unread' };
  if (entry.isPartialView) return { kind: 'partial', entry };
  if (entry.hash !== file.hash) return { kind: 'changed', entry, mtimeMs: file.mtimeMs };
  if (entry.mtimeMs !== file.mtimeMs) {
    const refreshed = { ...entry, mtimeMs: file.mtimeMs };
    state.set(refreshed);
    return { kind: 'current', entry: refreshed };
  }
  return { kind: 'current', entry };
}

/** After a tool wrote `bytes` to `path`: the session knows all of it, so the next edit needs no Read. */
export function recordWritten(state: ReadFileState, path: string, bytes: Uint8Array, mtimeMs: number): void {
  state.set({ path, hash: hashBytes(bytes), mtimeMs, isPartialView: false, origin: 'written' });
}

/** "lines 40–90 of the file" for a partial entry, for refusals that tell the model what it saw. */
export function describeView(entry: FileStateEntry): string {
  if (!entry.isPartialView || entry.offset === undefined || entry.limit === undefined) return 'part of it';
  return `only lines ${entry.offset}–${entry.offset + entry.limit - 1}`;
}
