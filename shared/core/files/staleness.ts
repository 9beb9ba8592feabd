import { describeRanges, type LineRange } from './lineRanges.js';
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
 * Other bytes are `changed` whatever was seen of them; the current bytes seen in part are `partial`.
 */
export function checkFreshness(state: ReadFileState, file: { path: string; hash: string; mtimeMs: number }): Freshness {
  let entry = state.get(file.path);
  if (!entry) return { kind: 'unread' };
  if (entry.hash !== file.hash) return { kind: 'changed', entry, mtimeMs: file.mtimeMs };
  if (entry.mtimeMs !== file.mtimeMs) {
    entry = { ...entry, mtimeMs: file.mtimeMs };
    state.set(entry);
  }
  return entry.isPartialView ? { kind: 'partial', entry } : { kind: 'current', entry };
}

/** After a tool wrote `bytes` to `path`: the session knows all of it, so the next edit needs no Read. */
export function recordWritten(state: ReadFileState, path: string, bytes: Uint8Array, mtimeMs: number): void {
  state.set({ path, hash: hashBytes(bytes), mtimeMs, isPartialView: false, origin: 'written' });
}

/**
 * After an Edit of a file seen only in part: the new bytes, still a partial view, with the lines
 * seen renumbered by the edit (lineRanges.ts rangesAfterReplace). Write still needs a full view.
 */
export function recordPartialEdit(
  state: ReadFileState,
  entry: FileStateEntry,
  bytes: Uint8Array,
  mtimeMs: number,
  seen: LineRange[],
): void {
  state.set({ path: entry.path, hash: hashBytes(bytes), mtimeMs, isPartialView: true, seen, origin: entry.origin });
}

/** "only lines 40–90" for a partial entry, for refusals that tell the model what it saw. */
export function describeView(entry: FileStateEntry): string {
  if (!entry.isPartialView) return 'all of it';
  return entry.seen && entry.seen.length > 0 ? `only ${describeRanges(entry.seen)}` : 'no lines';
}
