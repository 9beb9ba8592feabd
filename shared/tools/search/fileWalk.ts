import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import picomatch from 'picomatch';
import { GITIGNORE, IgnoreRules } from './gitignore.js';
import { GlobFilter } from './globFilter.js';

export interface WalkOptions {
  /** The folder paths are relative to. */
  base: string;
  /** The folder to walk, relative to `base` ('' for `base`). */
  start: string;
  /** rg-style globs (globFilter.ts); `!.git` is added last, as on the rg command line. */
  globs: readonly string[];
  /** File-name globs of the `type` filter, if one is set. */
  typeGlobs?: readonly string[];
  signal: AbortSignal;
}

/** Folders read at once: enough to hide disk latency, few enough not to exhaust file handles. */
const CONCURRENT_READDIRS = 16;

/**
 * The files Grep's JS fallback searches under one folder, chosen as rg chooses them with the
 * arguments the rg path uses: hidden files included, `.git` never entered, symlinks not followed
 * (a symlinked file is skipped, as rg skips it), .gitignore files honoured (gitignore.ts), `glob`
 * deciding first and beating .gitignore and `type` (globFilter.ts), then `type` by file name.
 * Files are handed to `onFiles` in batches as folders are read; order does not matter because the
 * output is sorted. Folders that cannot be read are reported in `warnings`.
 */
export async function walkFiles(options: WalkOptions, onFiles: (batch: string[]) => void): Promise<{ warnings: string[] }> {
  const globs = new GlobFilter([...options.globs, '!.git']);
  const isType = options.typeGlobs ? picomatch([...options.typeGlobs], { dot: true }) : undefined;
  const warnings: string[] = [];
  // Each folder is queued with its parent's rules and adds its own .gitignore when read.
  const startRules = options.start === '' ? IgnoreRules.none : IgnoreRules.forDir(options.base, parentOf(options.start));
  const pending: { dir: string; rules: IgnoreRules }[] = [{ dir: options.start, rules: startRules }];

  const visit = async (item: { dir: string; rules: IgnoreRules }): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = await readdir(path.join(options.base, item.dir), { withFileTypes: true });
    } catch (error) {
      warnings.push(`${item.dir || '.'}: ${(error as Error).message}`);
      return;
    }
    const hasGitignore = entries.some((entry) => entry.name === GITIGNORE);
    const rules = item.rules.enter(options.base, item.dir, hasGitignore);
    const files: string[] = [];
    for (const entry of entries) {
      const rel = item.dir === '' ? entry.name : `${item.dir}/${entry.name}`;
      if (entry.isDirectory()) {
        const decision = globs.decide(rel, true);
        if (decision === 'exclude') continue;
        if (decision === undefined && rules.ignores(rel, true)) continue;
        pending.push({ dir: rel, rules });
      } else if (entry.isFile()) {
        const decision = globs.decide(rel, false);
        if (decision === 'exclude') continue;
        if (decision === undefined) {
          if (rules.ignores(rel, false)) continue;
          if (isType && !isType(entry.name)) continue;
        }
        files.push(rel);
      }
    }
    if (files.length > 0) onFiles(files);
  };

  const running = new Set<Promise<void>>();
  while (pending.length > 0 || running.size > 0) {
    options.signal.throwIfAborted();
    while (pending.length > 0 && running.size < CONCURRENT_READDIRS) {
      const job: Promise<void> = visit(pending.pop()!).finally(() => running.delete(job));
      running.add(job);
    }
    if (running.size > 0) await Promise.race(running);
  }
  return { warnings };
}

function parentOf(dir: string): string {
  const slash = dir.lastIndexOf('/');
  return slash === -1 ? '' : dir.slice(0, slash);
}
