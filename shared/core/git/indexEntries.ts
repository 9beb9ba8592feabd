import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import path from 'node:path';
import { worktreeGitDir } from './worktreeStartState.js';

/** One entry of an index: its path, `<mode> <object id>` as ls-files prints them, and its stage. */
export interface IndexEntry {
  path: string;
  /** `100644 e69de29…` */
  entry: string;
  stage: number;
}

const SIGNATURE = 'DIRC';
const HEADER_BYTES = 12;
const SHA1_BYTES = 20;
/** ctime, mtime, dev, ino, mode, uid, gid, size (4 bytes each but the times' 8), then the id and 2 bytes of flags. */
const MODE_AT = 24;
const ID_AT = 40;
const FLAGS_AT = 60;
const NAME_AT = 62;
const EXTENDED = 0x4000;
const SPARSE_DIRECTORY_MODE = 0o040000;
const CHUNK_BYTES = 64 * 1024;
/** A version-4 prefix length is 4 bytes at most here (git refuses more than a path's length). */
const MAX_VARINT_BYTES = 5;

/**
 * A work tree's index entries read from its index file, as `git ls-files -z --stage` lists them:
 * each path with `<mode> <object id>` and its stage. Read here rather than by a git process: the
 * tree snapshot that checks and the Report gate take asks for them twice on the way from an
 * agent's last call to its result, and a process costs its Node parent a fork of its whole memory
 * (4–5 ms from a worker, measured: docs/benchmarks.md) where reading the file costs well under one.
 *
 * Only an index read exactly as git would read it is used; otherwise `undefined`, and the caller
 * asks git: the format's versions 2 to 4 with SHA-1 ids, its trailing checksum matching its bytes
 * (a write torn or under way, a SHA-256 repository and `index.skipHash` all fail it), no split
 * index (`link`: its entries are partly in another file) and no sparse directories (`sdir`, or an
 * entry of mode 040000: ls-files lists the files within them), and no GIT_DIR, GIT_WORK_TREE or
 * GIT_INDEX_FILE in this process's environment (git would read another index than the one found
 * here).
 *
 * The file is read in chunks and each entry handed to `onEntry` as it is read, never held whole
 * (20,000 files: a 2 MB index; a worker holds several agents). Whether it reads as git reads it is
 * known only at its end (its checksum, its extensions): on `false`, whatever was handed over must
 * be dropped, and git asked.
 */
export function readIndexEntries(top: string, onEntry: (entry: IndexEntry) => void): boolean {
  if (process.env.GIT_DIR || process.env.GIT_WORK_TREE || process.env.GIT_INDEX_FILE) return false;
  const file = indexFileOf(top);
  if (!file) return false;
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return false; // No index file (or none readable): git says what that means.
  }
  try {
    return readIndex({ size: fstatSync(fd).size, read: (into, position) => readSync(fd, into, 0, into.length, position) }, onEntry);
  } finally {
    closeSync(fd);
  }
}

/** An index's bytes whole (tests, and what a caller already holds): its entries, or undefined where git's reading could differ. */
export function parseIndex(bytes: Buffer): IndexEntry[] | undefined {
  const entries: IndexEntry[] = [];
  const source = { size: bytes.length, read: (into: Buffer, position: number) => bytes.copy(into, 0, position, position + into.length) };
  return readIndex(source, (entry) => entries.push(entry)) ? entries : undefined;
}

/** The index of the work tree whose top is `top`: in its own git folder, found by its `.git` folder or pointer file. */
function indexFileOf(top: string): string | undefined {
  try {
    return path.join(worktreeGitDir(top), 'index');
  } catch {
    return undefined; // No `.git` at the top: git finds the repository its own way.
  }
}

interface ByteSource {
  size: number;
  /** Fills `into` from `position`; returns how many bytes it read. */
  read(into: Buffer, position: number): number;
}

function readIndex(source: ByteSource, onEntry: (entry: IndexEntry) => void): boolean {
  const end = source.size - SHA1_BYTES;
  if (end < HEADER_BYTES) return false;
  const hash = createHash('sha1');
  const bytes = new ByteWindow(source, end, hash);
  if (!bytes.have(HEADER_BYTES) || bytes.chunk.toString('latin1', 0, 4) !== SIGNATURE) return false;
  const version = bytes.chunk.readUInt32BE(4);
  const count = bytes.chunk.readUInt32BE(8);
  if (version < 2 || version > 4) return false;
  bytes.skip(HEADER_BYTES);
  // Version 4 names each path by the bytes it keeps of the one before (paths are bytes, not characters).
  let previous: Buffer = Buffer.alloc(0);
  for (let index = 0; index < count; index += 1) {
    const entry = readEntry(bytes, version, previous);
    if (!entry) return false;
    previous = entry.name;
    onEntry(entry.entry);
  }
  if (!onlyPlainExtensions(bytes) || bytes.position() !== end) return false;
  const checksum = Buffer.alloc(SHA1_BYTES);
  return source.read(checksum, end) === SHA1_BYTES && hash.digest().equals(checksum);
}

/** One entry at the window's cursor, the cursor moved past it; undefined when it is not one git reads as such. */
function readEntry(bytes: ByteWindow, version: number, previous: Buffer): { entry: IndexEntry; name: Buffer } | undefined {
  if (!bytes.have(NAME_AT)) return undefined;
  const mode = bytes.chunk.readUInt32BE(bytes.at + MODE_AT);
  const flags = bytes.chunk.readUInt16BE(bytes.at + FLAGS_AT);
  const id = bytes.chunk.toString('hex', bytes.at + ID_AT, bytes.at + ID_AT + SHA1_BYTES);
  if (mode === SPARSE_DIRECTORY_MODE) return undefined;
  let nameAt = NAME_AT + ((flags & EXTENDED) !== 0 && version >= 3 ? 2 : 0);
  let kept = 0;
  if (version === 4) {
    const strip = varint(bytes, nameAt);
    if (!strip || strip.value > previous.length) return undefined;
    kept = previous.length - strip.value;
    nameAt = strip.next;
  }
  const nul = bytes.nul(nameAt);
  if (nul < 0) return undefined;
  const suffix = bytes.chunk.subarray(bytes.at + nameAt, bytes.at + nul);
  // A copy: the chunk it was read from is let go of.
  const name = Buffer.concat([previous.subarray(0, kept), suffix]);
  // Versions 2 and 3 pad each entry with 1 to 8 NULs to a multiple of 8 bytes; version 4 does not pad.
  if (!bytes.skip(version === 4 ? nul + 1 : (nul + 8) & ~7)) return undefined;
  return { entry: { path: name.toString('utf8'), entry: `${mode.toString(8).padStart(6, '0')} ${id}`, stage: (flags >> 12) & 3 }, name };
}

/** Whether the extensions after the entries are there whole and none makes the entries partial (split index, sparse index). */
function onlyPlainExtensions(bytes: ByteWindow): boolean {
  while (bytes.have(1)) {
    if (!bytes.have(8)) return false;
    const name = bytes.chunk.toString('latin1', bytes.at, bytes.at + 4);
    if (name === 'link' || name === 'sdir') return false;
    if (!bytes.skip(8 + bytes.chunk.readUInt32BE(bytes.at + 4))) return false;
  }
  return true;
}

/** git's offset varint (read-cache.c, decode_varint) at `offset` from the cursor: 7 bits a byte, high bit set while more follow, each continuation adding one. */
function varint(bytes: ByteWindow, offset: number): { value: number; next: number } | undefined {
  let next = offset;
  let value = -1;
  let byte = 0x80;
  while ((byte & 0x80) !== 0) {
    if (next - offset >= MAX_VARINT_BYTES || !bytes.have(next + 1)) return undefined;
    byte = bytes.chunk[bytes.at + next++]!;
    value = value < 0 ? byte & 0x7f : ((value + 1) << 7) | (byte & 0x7f);
  }
  return { value, next };
}

/**
 * The index's body read forward in chunks, each hashed as it is read (every byte once, in order),
 * with a cursor: `chunk` from `at` holds what `have` asked for, until the next read.
 */
class ByteWindow {
  chunk: Buffer = Buffer.alloc(0);
  at = 0;
  /** The file position of chunk[0]. */
  private offset = 0;

  constructor(
    private readonly source: ByteSource,
    private readonly end: number,
    private readonly hash: ReturnType<typeof createHash>,
  ) {}

  position(): number {
    return this.offset + this.at;
  }

  /** Whether `count` bytes from the cursor are in `chunk` (read if need be); false where the body ends before them. */
  have(count: number): boolean {
    while (this.chunk.length - this.at < count) if (!this.more()) return false;
    return true;
  }

  /** The cursor moved on by `count` bytes (read through, and so hashed); false where the body ends before. */
  skip(count: number): boolean {
    let left = count;
    while (this.chunk.length - this.at < left) {
      left -= this.chunk.length - this.at;
      this.offset += this.chunk.length;
      this.chunk = Buffer.alloc(0);
      this.at = 0;
      if (!this.more()) return false;
    }
    this.at += left;
    return true;
  }

  /** Where the next NUL from `from` bytes past the cursor is, counted from the cursor; -1 when the body ends first. */
  nul(from: number): number {
    let searched = from;
    for (;;) {
      const found = this.chunk.indexOf(0, this.at + searched);
      if (found >= 0) return found - this.at;
      searched = this.chunk.length - this.at;
      if (!this.more()) return -1;
    }
  }

  private more(): boolean {
    const from = this.offset + this.chunk.length;
    if (from >= this.end) return false;
    const next = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, this.end - from));
    if (this.source.read(next, from) !== next.length) return false;
    this.hash.update(next);
    this.chunk = this.at === this.chunk.length ? next : Buffer.concat([this.chunk.subarray(this.at), next]);
    this.offset += this.at;
    this.at = 0;
    return true;
  }
}
