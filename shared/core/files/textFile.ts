import { readFileSync, type Stats, statSync } from 'node:fs';
import { ToolError } from '../boundary/toolError.js';
import { hashBytes } from './readFileState.js';
import { decodeText, type TextFormat } from './textCodec.js';

/** Files larger than this are not loaded whole: Grep or Bash can look into them. */
export const MAX_TEXT_FILE_BYTES = 10 * 1024 * 1024;

/** A text file as it is on disk now: its bytes, their hash, and the text they decode to. */
export interface TextFile {
  path: string;
  bytes: Buffer;
  hash: string;
  mtimeMs: number;
  /** The decoded text as stored: byte order mark removed, line endings untouched. */
  text: string;
  format: TextFormat;
}

/** The file's stats, or undefined when nothing is there (also when a parent is a file). */
export function statIfExists(abs: string): Stats | undefined {
  try {
    return statSync(abs, { throwIfNoEntry: false });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    throw error;
  }
}

/**
 * Loads `abs` (a real path from `Workspace.resolve`) as text, or throws a ToolError naming
 * `shown` and saying why not: missing, a directory or other non-regular file, too large, binary,
 * or in an encoding that cannot be round-tripped. Synchronous, so a tool can check and write
 * with no await between.
 */
export function loadTextFile(abs: string, shown: string): TextFile {
  const stats = statIfExists(abs);
  if (!stats) throw new ToolError(`${shown} does not exist.`);
  if (stats.isDirectory()) {
    throw new ToolError(`${shown} is a directory, not a file: use Glob, or \`ls\` in Bash, to see what it contains.`);
  }
  // Opening a FIFO or a device could block or never end; only plain files are text files here.
  if (!stats.isFile())
    throw new ToolError(`${shown} is not a regular file (a FIFO, socket or device); only regular files can be read or edited.`);
  if (stats.size > MAX_TEXT_FILE_BYTES) {
    throw new ToolError(
      `${shown} is ${megabytes(stats.size)}, more than the ${megabytes(MAX_TEXT_FILE_BYTES)} the file tools load. ` +
        'Use Grep to find what you need in it, or Bash (head, tail, sed -n) to look at parts of it.',
    );
  }
  const bytes = readFileSync(abs);
  const decoded = decodeText(bytes);
  if (!decoded.ok) {
    throw new ToolError(
      `${shown} ${decoded.problem}. It was left as it is: Read, Edit and Write handle only UTF-8 text ` +
        '(with or without a BOM) and UTF-16LE text with a BOM. Inspect it with Bash (e.g. `file`, `xxd`, `iconv`).',
    );
  }
  return { path: abs, bytes, hash: hashBytes(bytes), mtimeMs: stats.mtimeMs, text: decoded.text, format: decoded.format };
}

function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
