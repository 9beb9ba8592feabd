import { spawn } from 'node:child_process';
import { accessSync, closeSync, constants, mkdtempSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ToolError } from '../../core/boundary/toolError.js';
import { fileTypeGlobs, unknownFileTypeMessage } from './fileTypes.js';
import type { EngineResult, FileMatches, GrepQuery } from './grepQuery.js';

let detected: { file?: string } | undefined;

/** The rg executable on PATH, looked up once per process; undefined when there is none. */
export function ripgrepPath(): string | undefined {
  detected ??= { file: findExecutable('rg') };
  return detected.file;
}

function findExecutable(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    const file = path.join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      if (statSync(file).isFile()) return file;
    } catch {
      // Not in this folder (or not executable): look in the next one.
    }
  }
  return undefined;
}

/**
 * The rg command line for a query. What each choice is for:
 * - `--null` puts a NUL after each path, so paths holding ':' or '-' parse unambiguously;
 * - `--hidden`, and `--glob !.git` last so no user glob can bring `.git` back;
 * - only .gitignore files count (`--no-require-git` so they do outside a git repository too;
 *   no .ignore/.rgignore, .git/info/exclude or global excludes), which the fallback mirrors;
 * - content mode always asks for line numbers: the formatter needs them to place `--` between
 *   groups and drops them when `-n` is false;
 * - a known `type` is redefined with our table (fileTypes.ts) so every rg version agrees with it.
 * No `--sort`: it would make rg single-threaded; the formatter sorts instead.
 */
export function ripgrepArgs(query: GrepQuery): string[] {
  const args = [
    '--no-config',
    '--hidden',
    '--no-require-git',
    '--no-ignore-dot',
    '--no-ignore-exclude',
    '--no-ignore-global',
    '--null',
    '--no-heading',
    '--with-filename',
    '--color=never',
    query.ignoreCase ? '--ignore-case' : '--case-sensitive',
  ];
  if (query.mode === 'files_with_matches') args.push('--files-with-matches');
  else if (query.mode === 'count') args.push('--count');
  else args.push('--line-number', `--before-context=${query.before}`, `--after-context=${query.after}`);
  if (query.multiline) args.push('--multiline', '--multiline-dotall');
  for (const glob of [...query.globs, '!.git']) args.push(`--glob=${glob}`);
  if (query.type !== undefined) {
    const globs = fileTypeGlobs(query.type);
    if (globs) {
      args.push(`--type-clear=${query.type}`);
      for (const glob of globs) args.push(`--type-add=${query.type}:${glob}`);
    }
    args.push(`--type=${query.type}`);
  }
  args.push(`--regexp=${query.pattern}`, '--', query.target === '' ? '.' : query.target);
  return args;
}

/** Stderr kept for the message; rg's errors are short, a flood of per-file warnings is not. */
const MAX_STDERR = 64 * 1024;
/** How often rg's output file is read while rg runs. */
const DRAIN_MS = 20;
/**
 * Bytes read at a time, into one buffer per search: a megabyte each made four agents' searches
 * 4 MB of a worker's peak; reads are cheap and each drain reads until it is caught up.
 */
const READ_CHUNK = 64 * 1024;

/**
 * Grep with rg: runs it in `query.base` and reads its output into the shapes both engines share.
 *
 * rg writes to an unlinked temp file, not a pipe: searching in parallel, rg writes each file's
 * results with a separate write, and on a pipe every write wakes the event loop (20,000 matching
 * files cost Node more CPU than rg's own search). The file is read every few milliseconds
 * instead, so parsing (and the mtime stats of files_with_matches) still overlap the search.
 */
export function runRipgrep(file: string, query: GrepQuery, signal: AbortSignal): Promise<EngineResult> {
  return new Promise((resolve, reject) => {
    const output = new OutputFile();
    let child;
    try {
      child = spawn(file, ripgrepArgs(query), { cwd: query.base, stdio: ['ignore', output.writeFd, 'pipe'], signal });
    } catch (error) {
      output.close();
      throw error;
    } finally {
      output.closeWriter();
    }
    const parser = new RipgrepOutput(query);
    const drain = () => output.drain((bytes) => parser.push(bytes));
    const timer = setInterval(drain, DRAIN_MS);
    let stderr = '';
    // stdio[2] is 'pipe', so stderr exists.
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      if (stderr.length < MAX_STDERR) stderr += chunk;
    });
    child.on('error', (error) => {
      clearInterval(timer);
      output.close();
      reject(signal.aborted ? signal.reason : error);
    });
    child.on('close', (code, killedBy) => {
      clearInterval(timer);
      if (signal.aborted) {
        output.close();
        return reject(signal.reason);
      }
      try {
        drain();
      } finally {
        output.close();
      }
      const files = parser.finish();
      const lines = stderr.split('\n').filter((line) => line.trim() !== '');
      if (code === 0 || code === 1 || (code === 2 && files.length > 0)) {
        resolve({ files, warnings: [...parser.notes, ...lines] });
      } else if (code === 2) {
        reject(new ToolError(describeRipgrepError(stderr.trim())));
      } else {
        reject(new Error(`rg ended with ${killedBy ? `signal ${killedBy}` : `exit code ${code}`}: ${stderr.trim()}`));
      }
    });
  });
}

/**
 * A temp file rg writes and we read as it grows. Its folder is removed at once: the two open
 * descriptors keep the data reachable, and nothing is left behind whatever happens next.
 */
class OutputFile {
  writeFd: number;
  private readonly readFd: number;
  private position = 0;
  private readonly buffer = Buffer.alloc(READ_CHUNK);
  private closed = false;

  constructor() {
    const dir = mkdtempSync(path.join(tmpdir(), 'orca-rg-'));
    try {
      const file = path.join(dir, 'stdout');
      this.writeFd = openSync(file, 'w');
      this.readFd = openSync(file, 'r');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  /** Our copy of the write end; the child keeps its own. */
  closeWriter(): void {
    if (this.writeFd !== -1) closeSync(this.writeFd);
    this.writeFd = -1;
  }

  /** Hands whatever rg wrote since the last call to `onBytes`, a read at a time (the buffer is reused). */
  drain(onBytes: (bytes: Buffer) => void): void {
    if (this.closed) return;
    for (;;) {
      const read = readSync(this.readFd, this.buffer, 0, this.buffer.length, this.position);
      if (read === 0) return;
      this.position += read;
      onBytes(this.buffer.subarray(0, read));
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.closeWriter();
    closeSync(this.readFd);
  }
}

function describeRipgrepError(stderr: string): string {
  const unknownType = /unrecognized file type: (\S+)/.exec(stderr);
  if (unknownType) return unknownFileTypeMessage(unknownType[1]!);
  if (/regex parse error|error parsing regex|regex could not be compiled/i.test(stderr)) {
    return `The pattern is not a valid regular expression: ${stderr}`;
  }
  return `rg failed: ${stderr}`;
}

/**
 * rg's `--null` output, parsed as it streams in. Files mode: `path\0` each. Count mode:
 * `path\0N` lines. Content mode: `path\0N:text` for a matching line, `path\0N-text` for context,
 * and `--` between groups, which the formatter puts back itself. Any other line (rg's notes on
 * binary files) is kept as a note.
 */
class RipgrepOutput {
  private readonly byPath = new Map<string, FileMatches>();
  /** The bytes of a record a read ended inside of, copied: the read buffer is used again. */
  private rest: Buffer[] = [];
  readonly notes: string[] = [];

  constructor(private readonly query: GrepQuery) {}

  /**
   * Each record is decoded from its own bytes (the terminator is one ASCII byte, never inside a
   * UTF-8 character), not sliced from a decoded read: a path or line kept in the result, and in
   * the session's ledger after it, would keep the whole megabyte read it was sliced from.
   */
  push(bytes: Buffer): void {
    const terminator = this.query.mode === 'files_with_matches' ? 0 : 0x0a;
    let start = 0;
    for (let end = bytes.indexOf(terminator); end !== -1; end = bytes.indexOf(terminator, start)) {
      // Decoded straight from the range: no view object per record.
      const record =
        this.rest.length === 0 ? this.decode(bytes, start, end) : this.decode(Buffer.concat([...this.rest, bytes.subarray(start, end)]));
      this.rest = [];
      this.record(record);
      start = end + 1;
    }
    if (start < bytes.length) this.rest.push(Buffer.from(bytes.subarray(start)));
  }

  finish(): FileMatches[] {
    if (this.rest.length > 0) this.record(this.decode(Buffer.concat(this.rest)));
    this.rest = [];
    return [...this.byPath.values()];
  }

  /**
   * A record's text. In files mode the record is the path alone, so rg's `./` is skipped in its
   * bytes: `slice(2)` of the decoded path would be a V8 sliced string holding the whole record,
   * 32 bytes more for each of the thousands of file names the session's ledger keeps.
   */
  private decode(bytes: Buffer, start = 0, end = bytes.length): string {
    const dotSlash = this.query.mode === 'files_with_matches' && end - start > 2 && bytes[start] === 0x2e && bytes[start + 1] === 0x2f;
    return bytes.toString('utf8', dotSlash ? start + 2 : start, end);
  }

  private record(record: string): void {
    if (this.query.mode === 'files_with_matches') {
      const file = normalize(record);
      this.byPath.set(file, { path: file, count: 1, mtimeMs: mtimeOf(path.join(this.query.base, file)) });
      return;
    }
    const nul = record.indexOf('\0');
    if (nul === -1) {
      if (record !== '--' && record !== '') this.notes.push(record);
      return;
    }
    const file = normalize(record.slice(0, nul));
    if (this.query.mode === 'count') {
      this.byPath.set(file, { path: file, count: Number(record.slice(nul + 1)) });
      return;
    }
    let at = nul + 1;
    while (at < record.length && record.charCodeAt(at) >= 48 && record.charCodeAt(at) <= 57) at++;
    const n = Number(record.slice(nul + 1, at));
    const match = record[at] === ':';
    let entry = this.byPath.get(file);
    if (!entry) {
      entry = { path: file, count: 0, lines: [] };
      this.byPath.set(file, entry);
    }
    if (match) entry.count++;
    entry.lines!.push({ n, text: record.slice(at + 1), match });
  }
}

/** rg prints `./a.ts` when told to search `.`; results use `a.ts`. */
function normalize(file: string): string {
  return file.startsWith('./') ? file.slice(2) : file;
}

/**
 * A file's mtime, taken synchronously as rg reports the file: a cached stat costs microseconds,
 * far less than a promise per file, and it runs while rg is still searching.
 */
function mtimeOf(file: string): number {
  try {
    return statSync(file).mtimeMs;
  } catch {
    // Deleted since rg matched it: still a match, listed last.
    return Number.NEGATIVE_INFINITY;
  }
}
