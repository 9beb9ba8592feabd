import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { EngineResult, FileMatches, GrepMode } from './grepQuery.js';
import { comparePaths, sortByPath } from './pathOrder.js';

/** Matching lines longer than this are cut (minified files would flood the context). */
export const MAX_LINE_CHARS = 1000;
/** Warnings listed one by one; past this a count stands for the rest. */
const MAX_WARNINGS = 10;

export interface GrepView {
  mode: GrepMode;
  /** The folder result paths are relative to (for the mtime of each file). */
  base: string;
  /** How a result path is shown: relative to the workspace root, or absolute outside it. */
  display: (rel: string) => string;
  lineNumbers: boolean;
  /** Context lines were asked for: groups are separated by `--`, as rg does. */
  context: boolean;
  /** Count mode counts matches rather than matching lines (multiline patterns that span lines). */
  countsMatches: boolean;
  /** Entries (files, lines) shown at most; undefined for all. */
  headLimit?: number;
}

/** What hooks see as tool_response: the shape of Claude Code's Grep result. */
export interface GrepData {
  mode: GrepMode;
  numFiles: number;
  filenames: string[];
  content?: string;
  numLines?: number;
  numMatches?: number;
  appliedLimit?: number;
}

/**
 * The one formatter both engines share: the same engine result gives the same text, whichever
 * engine produced it. Order is deterministic: files_with_matches newest first (mtime), then by
 * path; content and count by path, folder by folder (`a/b.ts` before `a.ts`). `head_limit` keeps
 * the first N entries and says how many there were. No matches is an answer, not an error.
 */
export async function formatGrep(result: EngineResult, view: GrepView): Promise<{ content: string; data: GrepData }> {
  const warnings = warningNote(result.warnings);
  if (result.files.length === 0) {
    return { content: `No matches found${warnings}`, data: { mode: view.mode, numFiles: 0, filenames: [] } };
  }

  if (view.mode === 'files_with_matches') {
    const files = await newestFirst(result.files, view.base);
    const shown = cut(files, view.headLimit);
    const names = shown.map((file) => view.display(file.path));
    let content = `Found ${plural(files.length, 'file')}\n${names.join('\n')}`;
    if (shown.length < files.length) content += `\n${limitNote(view.headLimit!, files.length, 'files')}`;
    return {
      content: content + warnings,
      data: { mode: view.mode, numFiles: files.length, filenames: names, appliedLimit: limitOf(shown, files, view) },
    };
  }

  const files = sortByPath(result.files, (file) => file.path);

  if (view.mode === 'count') {
    const shown = cut(files, view.headLimit);
    const total = files.reduce((sum, file) => sum + file.count, 0);
    const lines = shown.map((file) => `${view.display(file.path)}:${file.count}`);
    let content = lines.join('\n');
    if (shown.length < files.length) content += `\n${limitNote(view.headLimit!, files.length, 'files')}`;
    const what = view.countsMatches ? plural(total, 'match', 'matches') : plural(total, 'matching line');
    content += `\n\nFound ${what} in ${plural(files.length, 'file')}.`;
    return {
      content: content + warnings,
      data: {
        mode: view.mode,
        numFiles: files.length,
        filenames: shown.map((file) => view.display(file.path)),
        numMatches: total,
        appliedLimit: limitOf(shown, files, view),
      },
    };
  }

  const rendered = renderContent(files, view);
  const shown = cut(rendered, view.headLimit);
  // A cut that ends on a group separator would show a dangling `--`.
  if (shown.length < rendered.length && shown.at(-1) === '--') shown.pop();
  let content = shown.join('\n');
  if (shown.length < rendered.length) content += `\n${limitNote(view.headLimit!, rendered.length, 'lines')}`;
  return {
    content: content + warnings,
    data: {
      mode: view.mode,
      numFiles: files.length,
      filenames: files.map((file) => view.display(file.path)),
      content: shown.join('\n'),
      numLines: rendered.length,
      appliedLimit: limitOf(shown, rendered, view),
    },
  };
}

/** rg's content format: `path:N:text` for matches, `path-N-text` for context, `--` between groups. */
function renderContent(files: FileMatches[], view: GrepView): string[] {
  const out: string[] = [];
  let previous = -1;
  for (const file of files) {
    const shownPath = view.display(file.path);
    previous = -1;
    for (const line of file.lines ?? []) {
      if (view.context && out.length > 0 && line.n !== previous + 1) out.push('--');
      previous = line.n;
      const sep = line.match ? ':' : '-';
      const number = view.lineNumbers ? `${line.n}${sep}` : '';
      out.push(`${shownPath}${sep}${number}${clip(line.text)}`);
    }
  }
  return out;
}

function clip(text: string): string {
  const line = text.endsWith('\r') ? text.slice(0, -1) : text;
  if (line.length <= MAX_LINE_CHARS) return line;
  return `${line.slice(0, MAX_LINE_CHARS)} … [line cut: ${line.length} characters]`;
}

async function newestFirst(files: FileMatches[], base: string): Promise<FileMatches[]> {
  const mtimes = await Promise.all(
    files.map((file) =>
      file.mtimeMs !== undefined
        ? file.mtimeMs
        : stat(path.join(base, file.path)).then(
            (info) => info.mtimeMs,
            // Deleted since it matched: still a match; it sorts last.
            () => Number.NEGATIVE_INFINITY,
          ),
    ),
  );
  const order = files.map((file, index) => ({ file, mtime: mtimes[index]! }));
  order.sort((a, b) => b.mtime - a.mtime || comparePaths(a.file.path, b.file.path));
  return order.map((entry) => entry.file);
}

function cut<T>(items: T[], limit: number | undefined): T[] {
  return limit === undefined || items.length <= limit ? items : items.slice(0, limit);
}

function limitOf(shown: unknown[], all: unknown[], view: GrepView): number | undefined {
  return shown.length < all.length ? view.headLimit : undefined;
}

function limitNote(limit: number, total: number, what: string): string {
  return `[head_limit ${limit}: showing the first ${limit} of ${total} ${what}. Raise head_limit or narrow the search to see the rest.]`;
}

function warningNote(warnings: string[]): string {
  if (warnings.length === 0) return '';
  const listed = warnings.slice(0, MAX_WARNINGS).map((warning) => `  ${warning}`);
  if (warnings.length > MAX_WARNINGS) listed.push(`  … and ${warnings.length - MAX_WARNINGS} more`);
  return `\n\n[Some files or folders could not be searched:\n${listed.join('\n')}]`;
}

function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}
