import { lstatSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { setImmediate } from 'node:timers/promises';
import picomatch from 'picomatch';
import { escapePath, glob } from 'tinyglobby';
import { z } from 'zod';
import { ToolError } from '../core/boundary/toolError.js';
import { defineTool, loadDescription } from '../core/tool/tool.js';
import { GitignoreFilter, insideGitFolder } from './search/gitignore.js';
import { comparePaths } from './search/pathOrder.js';

export const GLOB_TOOL = 'Glob';
/** Files listed at most; the rest are counted in a note. */
export const MAX_GLOB_RESULTS = 100;

export const GlobInputSchema = z.strictObject({
  pattern: z.string().min(1).describe('The glob to match file paths against, e.g. "**/*.ts" or "src/**/*.{js,jsx}".'),
  path: z
    .string()
    .min(1)
    .optional()
    .describe('The folder to search in: absolute, or relative to the workspace root. Defaults to the workspace root.'),
});
export type GlobInput = z.infer<typeof GlobInputSchema>;

/**
 * Glob: finds files by name pattern inside the workspace.
 *
 * The rules:
 * - `path` (default: the workspace root) resolves through the workspace, must exist and be a
 *   folder; the pattern is matched relative to it. A pattern whose fixed part leads elsewhere
 *   (`../x/*.ts`, an absolute pattern) is resolved the same way, so it cannot leave the workspace.
 * - Files only. Hidden files match; `.git` (a path into it is refused) and gitignored files
 *   (nested .gitignore files too) never do, except inside a folder the search was asked to start
 *   in (as Grep searches an ignored folder it is given); symlinks are not followed.
 * - Newest first (modification time), then by path; at most 100, with a note saying how many
 *   more there were and to narrow the pattern. Paths are relative to the workspace root.
 * - No match is a plain answer ("No files match …"), not an error.
 */
export const globTool = defineTool({
  name: GLOB_TOOL,
  description: loadDescription(import.meta.url, './glob.txt'),
  input: GlobInputSchema,
  level: 'read-only',
  readOnly: true,
  family: 'read',
  rule: { kind: 'path', field: 'path' },
  results: { kind: 'output' },
  async call(input, ctx) {
    const workspace = ctx.workspace;
    const folder = workspace.resolve(input.path ?? '.', 'read');
    await requireFolder(folder, input.path ?? '.');

    // The fixed leading part of the pattern is a folder to search in, checked like `path`.
    const scan = picomatch.scan(input.pattern);
    const fixed = scan.isGlob ? scan.base : path.posix.dirname(input.pattern);
    const rest = scan.isGlob ? scan.glob : escapePath(path.posix.basename(input.pattern));
    const searchDir = workspace.resolve(path.resolve(folder, fixed), 'read');
    if (insideGitFolder(workspace.relative(searchDir))) {
      throw new ToolError('Glob does not list .git. Inspect the repository with git commands in Bash instead.');
    }
    const where = input.path ?? 'the workspace root';
    const none = {
      content: `No files match ${JSON.stringify(input.pattern)} in ${where}.`,
      data: { filenames: [], numFiles: 0, truncated: false },
    };
    if (!(await isFolder(searchDir))) return none;

    // Paths relative to the search folder, as the walk builds them: absolute ones each cost a
    // path.relative back, and a Glob over 20,000 files held both lists at once, per agent.
    const found = await glob(rest, {
      cwd: searchDir,
      dot: true,
      onlyFiles: true,
      followSymbolicLinks: false,
      expandDirectories: false,
      ignore: ['**/.git', '**/.git/**'],
      signal: ctx.signal,
    });

    // .gitignore rules count from the workspace root (or, in a read root outside it, from where
    // the search starts).
    const base = workspace.contains(searchDir) ? workspace.root : searchDir;
    const prefix = path.relative(base, searchDir).split(path.sep).join('/');
    const gitignore = new GitignoreFilter(base, prefix);
    const kept = keepInPlace(
      found,
      (rel) => fromBase(base, searchDir, prefix, rel),
      (rel) => !gitignore.ignores(rel),
    );
    if (kept.length === 0) return none;

    const { newest, count } = await newestOf(base, kept, MAX_GLOB_RESULTS);
    if (count === 0) return none;
    const display = (rel: string) => (base === workspace.root ? rel : path.join(base, rel));
    const filenames = newest.map((entry) => display(entry.rel));
    let content = filenames.join('\n');
    const more = count - filenames.length;
    if (more > 0) {
      content +=
        `\n[Showing the ${MAX_GLOB_RESULTS} most recently modified of ${count} matching files; ` +
        `${more} more not shown. Narrow the pattern or the path to see them.]`;
    }
    return { content, data: { filenames, numFiles: count, truncated: more > 0 } };
  },
});

/**
 * `list` mapped and filtered in place, its own array reused: no second array of every path while
 * the first is still held.
 */
function keepInPlace(list: string[], map: (item: string) => string, keep: (item: string) => boolean): string[] {
  let kept = 0;
  for (const item of list) {
    const mapped = map(item);
    if (keep(mapped)) list[kept++] = mapped;
  }
  list.length = kept;
  return list;
}

/**
 * A path the walk found (relative to `searchDir`, `/`-separated) made relative to `base`, which
 * holds `searchDir` at `prefix`: joined as it is, unless it climbs (`..`), which path.relative
 * then resolves as before.
 */
function fromBase(base: string, searchDir: string, prefix: string, found: string): string {
  if (found.startsWith('../') || found.includes('/../'))
    return path.relative(base, path.resolve(searchDir, found)).split(path.sep).join('/');
  return prefix === '' ? found : `${prefix}/${found}`;
}

/**
 * Files dated between two yields to the event loop. Each lstat is synchronous (a cached stat is
 * microseconds, as rg's files are dated in ripgrep.ts): a promise per file, 64 in flight, made a
 * Glob over 20,000 files allocate about 50 MB per agent in promises, requests and stats that
 * lived long enough to grow the heap. A batch blocks the loop about a millisecond.
 */
const STAT_BATCH = 256;

type Dated = { rel: string; mtime: number };

const newerFirst = (a: Dated, b: Dated): number => b.mtime - a.mtime || comparePaths(a.rel, b.rel);

/**
 * The `keep` most recently modified of `rels` (newest first) and how many could be dated. Only
 * the newest are kept as they come, not every file's date: a Glob over a large repository held
 * tens of thousands of them at once, per agent.
 */
async function newestOf(base: string, rels: string[], keep: number): Promise<{ newest: Dated[]; count: number }> {
  let newest: Dated[] = [];
  // The `keep`-th newest seen at the last cut: an older file cannot be among the newest.
  let cutoff: Dated | undefined;
  let count = 0;
  for (let index = 0; index < rels.length; index += 1) {
    if (index > 0 && index % STAT_BATCH === 0) await setImmediate();
    const entry = withMtime(base, rels[index]!);
    if (!entry) continue;
    count += 1;
    if (cutoff && newerFirst(entry, cutoff) >= 0) continue;
    newest.push(entry);
    // Sorted and cut back to `keep` in batches, not on every insert.
    if (newest.length >= keep * 2) {
      newest = newest.sort(newerFirst).slice(0, keep);
      cutoff = newest[keep - 1];
    }
  }
  return { newest: newest.sort(newerFirst).slice(0, keep), count };
}

/** A found file with its modification time; undefined when it was deleted since it was found. */
function withMtime(base: string, rel: string): Dated | undefined {
  // Joined, not path.join'd: `rel` is already normal, and normalizing 20,000 paths again was
  // the largest allocation of a Glob.
  const info = lstatSync(`${base}/${rel}`, { throwIfNoEntry: false });
  return info ? { rel, mtime: info.mtimeMs } : undefined;
}

async function requireFolder(abs: string, requested: string): Promise<void> {
  let info;
  try {
    info = await stat(abs);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new ToolError(`Path does not exist: ${requested}. Give a folder inside the workspace (or leave path out to search all of it).`);
    }
    throw error;
  }
  if (!info.isDirectory()) {
    throw new ToolError(`${requested} is not a folder. Give its folder as path and the file name (or a glob) as pattern.`);
  }
}

async function isFolder(abs: string): Promise<boolean> {
  try {
    return (await stat(abs)).isDirectory();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return false;
    throw error;
  }
}
