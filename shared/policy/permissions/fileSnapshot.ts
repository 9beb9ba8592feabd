import { createHash } from 'node:crypto';
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';

/**
 * What one path holds, byte for byte, so the host can tell it changed and put it back: a file's
 * bytes and mode, a symbolic link's target, a folder (its files are entries of their own), or
 * nothing.
 */
export type EntryState =
  | { kind: 'file'; bytes: Buffer; mode: number }
  | { kind: 'link'; target: string }
  | { kind: 'dir' }
  | { kind: 'missing' };

/** Files larger than this are fingerprinted by hash only and cannot be restored (guarded files are small). */
const KEEP_BYTES = 4 * 1024 * 1024;

export function readEntry(file: string): EntryState {
  let stat: ReturnType<typeof lstatSync>;
  try {
    stat = lstatSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR')
      return { kind: 'missing' };
    throw error;
  }
  if (stat.isSymbolicLink()) return { kind: 'link', target: readlinkSync(file) };
  if (stat.isDirectory()) return { kind: 'dir' };
  if (stat.size > KEEP_BYTES) return { kind: 'file', bytes: Buffer.from(`sha256:${hashOf(readFileSync(file))}`), mode: -1 };
  return { kind: 'file', bytes: readFileSync(file), mode: stat.mode & 0o7777 };
}

export function sameEntry(a: EntryState, b: EntryState): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === 'file' && b.kind === 'file') return a.mode === b.mode && a.bytes.equals(b.bytes);
  if (a.kind === 'link' && b.kind === 'link') return a.target === b.target;
  return true;
}

/** Every entry at and under `root` (a folder's contents listed, links not followed), as path → state. */
export function readTree(root: string, into = new Map<string, EntryState>()): Map<string, EntryState> {
  const state = readEntry(root);
  into.set(root, state);
  if (state.kind === 'dir') {
    for (const name of readdirSync(root)) readTree(path.join(root, name), into);
  }
  return into;
}

/**
 * Puts `file` back as `state` said it was: what is there now (a folder planted in place of a
 * file included) goes first. A large file known only by its hash cannot be put back: false.
 */
export function restoreEntry(file: string, state: EntryState): boolean {
  const now = readEntry(file);
  if (sameEntry(now, state)) return true;
  if (state.kind === 'file' && state.mode === -1) return false;
  if (now.kind === 'dir' && state.kind !== 'dir') rmSync(file, { recursive: true, force: true });
  else if (now.kind !== 'missing' && now.kind !== 'dir') unlinkSync(file);
  if (state.kind === 'missing') return true;
  mkdirSync(path.dirname(file), { recursive: true });
  if (state.kind === 'dir') mkdirSync(file, { recursive: true });
  else if (state.kind === 'link') symlinkSync(state.target, file);
  else {
    writeFileSync(file, state.bytes);
    chmodSync(file, state.mode);
  }
  return true;
}

function hashOf(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}
