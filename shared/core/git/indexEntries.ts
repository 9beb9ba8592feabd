import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';

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
 */
export function readIndexEntries(top: string): IndexEntry[] | undefined {
  if (process.env.GIT_DIR || process.env.GIT_WORK_TREE || process.env.GIT_INDEX_FILE) return undefined;
  const file = indexFileOf(top);
  if (!file) return undefined;
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    return undefined; // No index file (or none readable): git says what that means.
  }
  return parseIndex(bytes);
}

/** The index of the work tree whose top is `top`: in its `.git` folder, or the one its `.git` file points to. */
function indexFileOf(top: string): string | undefined {
  const dotGit = path.join(top, '.git');
  try {
    if (statSync(dotGit).isDirectory()) return path.join(dotGit, 'index');
    const pointer = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(dotGit, 'utf8'))?.[1];
    return pointer ? path.join(path.resolve(top, pointer), 'index') : undefined;
  } catch {
    return undefined; // No `.git` at the top: git finds the repository its own way.
  }
}

/** The entries of an index file's bytes, or undefined where git's own reading could differ. */
export function parseIndex(bytes: Buffer): IndexEntry[] | undefined {
  if (bytes.length < HEADER_BYTES + SHA1_BYTES || bytes.toString('latin1', 0, 4) !== SIGNATURE) return undefined;
  const body = bytes.subarray(0, bytes.length - SHA1_BYTES);
  if (!createHash('sha1').update(body).digest().equals(bytes.subarray(body.length))) return undefined;
  const version = bytes.readUInt32BE(4);
  if (version < 2 || version > 4) return undefined;
  const count = bytes.readUInt32BE(8);
  const entries: IndexEntry[] = [];
  let at = HEADER_BYTES;
  // Version 4 names each path by the bytes it keeps of the one before (paths are bytes, not characters).
  let previous: Buffer = Buffer.alloc(0);
  for (let index = 0; index < count; index += 1) {
    if (at + NAME_AT > body.length) return undefined;
    const mode = bytes.readUInt32BE(at + MODE_AT);
    const flags = bytes.readUInt16BE(at + FLAGS_AT);
    if (mode === SPARSE_DIRECTORY_MODE) return undefined;
    let nameAt = at + NAME_AT + ((flags & EXTENDED) !== 0 && version >= 3 ? 2 : 0);
    let kept = 0;
    if (version === 4) {
      const strip = varint(bytes, nameAt);
      if (!strip || strip.value > previous.length) return undefined;
      kept = previous.length - strip.value;
      nameAt = strip.next;
    }
    const end = bytes.indexOf(0, nameAt);
    if (end < 0 || end >= body.length) return undefined;
    const name = kept === 0 ? bytes.subarray(nameAt, end) : Buffer.concat([previous.subarray(0, kept), bytes.subarray(nameAt, end)]);
    entries.push({
      path: name.toString('utf8'),
      entry: `${mode.toString(8).padStart(6, '0')} ${bytes.toString('hex', at + ID_AT, at + ID_AT + SHA1_BYTES)}`,
      stage: (flags >> 12) & 3,
    });
    previous = name;
    // Versions 2 and 3 pad each entry with 1 to 8 NULs to a multiple of 8 bytes; version 4 does not pad.
    at = version === 4 ? end + 1 : at + ((end - at + 8) & ~7);
  }
  return onlyPlainExtensions(body, at) ? entries : undefined;
}

/** Whether the extensions after the entries are there whole and none makes the entries partial (split index, sparse index). */
function onlyPlainExtensions(body: Buffer, from: number): boolean {
  let at = from;
  while (at < body.length) {
    if (at + 8 > body.length) return false;
    const name = body.toString('latin1', at, at + 4);
    if (name === 'link' || name === 'sdir') return false;
    at += 8 + body.readUInt32BE(at + 4);
  }
  return at === body.length;
}

/** git's offset varint (read-cache.c, decode_varint): 7 bits a byte, high bit set while more follow, each continuation adding one. */
function varint(bytes: Buffer, at: number): { value: number; next: number } | undefined {
  let next = at;
  if (next >= bytes.length) return undefined;
  let byte = bytes[next++]!;
  let value = byte & 0x7f;
  while ((byte & 0x80) !== 0) {
    if (next >= bytes.length || value > 0xffffff) return undefined;
    byte = bytes[next++]!;
    value = ((value + 1) << 7) | (byte & 0x7f);
  }
  return { value, next };
}
