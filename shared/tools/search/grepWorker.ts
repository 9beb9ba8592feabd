import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { FileMatches } from './grepQuery.js';
import { TextMatcher, type TextMatchOptions } from './matchText.js';

/**
 * The piscina worker of the JS Grep fallback: reads a batch of files and matches them, off the
 * main thread. Loaded from the compiled tree (compiledEntry('shared/tools/search/grepWorker.ts')).
 */

export interface GrepBatch {
  base: string;
  /** Paths relative to `base`. */
  files: string[];
  options: TextMatchOptions;
}

export interface GrepBatchResult {
  files: FileMatches[];
  warnings: string[];
}

const matchers = new Map<string, TextMatcher>();

export default function searchBatch(batch: GrepBatch): GrepBatchResult {
  const key = JSON.stringify(batch.options);
  let matcher = matchers.get(key);
  if (!matcher) {
    if (matchers.size > 32) matchers.clear();
    matcher = new TextMatcher(batch.options);
    matchers.set(key, matcher);
  }
  const files: FileMatches[] = [];
  const warnings: string[] = [];
  for (const rel of batch.files) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(path.join(batch.base, rel));
    } catch (error) {
      warnings.push(`${rel}: ${(error as Error).message}`);
      continue;
    }
    const text = decodeText(bytes);
    if (text === undefined) continue;
    const found = matcher.match(text);
    if (!found) continue;
    const entry: FileMatches = { path: rel, ...found };
    if (batch.options.mode === 'files_with_matches') entry.mtimeMs = mtimeOf(path.join(batch.base, rel));
    files.push(entry);
  }
  return { files, warnings };
}

/**
 * A file's text as rg reads it: a UTF-8 byte order mark dropped, UTF-16 with a byte order mark
 * transcoded, anything else taken as UTF-8. Undefined for a binary file (a NUL byte anywhere),
 * which rg skips when it meets one in a folder.
 */
export function decodeText(bytes: Buffer): string | undefined {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return bytes.subarray(2).toString('utf16le');
  if (bytes[0] === 0xfe && bytes[1] === 0xff) {
    const even = bytes.subarray(2, bytes.length - (bytes.length % 2));
    return Buffer.from(even).swap16().toString('utf16le');
  }
  if (bytes.indexOf(0) !== -1) return undefined;
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return bytes.subarray(3).toString('utf8');
  return bytes.toString('utf8');
}

function mtimeOf(file: string): number {
  try {
    return statSync(file).mtimeMs;
  } catch {
    // Deleted since it was read: still a match, listed last.
    return Number.NEGATIVE_INFINITY;
  }
}
