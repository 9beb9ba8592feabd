import { z } from 'zod';
import { ToolError } from '../core/boundary/toolError.js';
import { addRange, coversAll } from '../core/files/lineRanges.js';
import { numberedLine, splitLines } from '../core/files/numberedLines.js';
import type { FileStateEntry } from '../core/files/readFileState.js';
import { normalizeLineEndings } from '../core/files/textCodec.js';
import { loadTextFile, type TextFile } from '../core/files/textFile.js';
import type { ReadResultData } from '../core/tool/readResultData.js';
import { defineTool, loadDescription, type ToolContext, type ToolOutput } from '../core/tool/tool.js';
import { isNotebookPath, parseNotebook } from './notebook/notebook.js';
import { renderNotebook } from './notebook/notebookView.js';

export const READ_TOOL = 'Read';
/** Lines shown when no limit is given. */
export const DEFAULT_READ_LINES = 2000;
/** Characters of numbered lines one Read returns at most (about 25,000 tokens); the rest waits for the next offset. */
export const MAX_READ_CHARS = 100_000;

export const ReadInputSchema = z.strictObject({
  file_path: z.string().min(1).describe('The file to read: an absolute path, or a path relative to the workspace root.'),
  offset: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe('The line number to start reading from (1-based; 0 counts as 1). Only give it for files too long to read at once.'),
  limit: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe(`The number of lines to read (default ${DEFAULT_READ_LINES}). Only give it for files too long to read at once.`),
});
export type ReadInput = z.infer<typeof ReadInputSchema>;

/** The lines one Read shows: all of the file, or `limit` lines from `offset`. */
type View = { full: true } | { full: false; offset: number; limit: number };

/**
 * Read: a text file inside the workspace (or the session's read roots), as numbered lines.
 *
 * The rules, in order:
 * - The path resolves through the workspace: `..`, absolute paths and symlinks that lead outside
 *   are refused, naming the path.
 * - Missing files, directories, FIFOs and devices, files over 10 MB, binary files and text that is
 *   not UTF-8 (with or without BOM) or UTF-16LE with BOM are refused (see files/textFile.ts).
 * - 2,000 lines from `offset` (1-based) by default, or `limit` lines; at most 100,000 characters of
 *   output, lines over 2,000 characters cut with a marker; a note says how many lines remain and
 *   the offset to continue with. CRLF is shown as LF. An empty file is said to be empty.
 * - The session's file state records what was seen: a full view, or a partial one (the lines
 *   shown). Partial reads of the same bytes add up, so a long file read chunk by chunk ends as a
 *   full view, and Edit may change the lines seen; a partial re-read never forgets a full view.
 * - Reading again what this session already read (same bytes, same range) returns a short stub
 *   pointing at the earlier result instead of the same content.
 * - A notebook (`.ipynb`) is read whole, as its cells (notebook/notebookView.ts), and recorded
 *   as a full view of its bytes: what NotebookEdit needs. offset and limit are refused for it.
 */
export const readTool = defineTool({
  name: READ_TOOL,
  description: loadDescription(import.meta.url, './read.txt'),
  input: ReadInputSchema,
  level: 'read-only',
  readOnly: true,
  family: 'read',
  rule: { kind: 'path', field: 'file_path' },
  results: { kind: 'file-read' },
  // Read bounds its own output (MAX_READ_CHARS): spilling it to a file would only call for another Read.
  resultLimit: Number.POSITIVE_INFINITY,
  async call(input, ctx) {
    const abs = ctx.workspace.resolve(input.file_path, 'read');
    const shown = ctx.workspace.display(abs);
    if (isNotebookPath(abs)) return readNotebook(abs, shown, input, ctx);
    const file = loadTextFile(abs, shown);
    const lines = splitLines(normalizeLineEndings(file.text));
    const total = lines.length;
    const known = ctx.fileState.get(abs);

    if (total === 0) {
      ctx.fileState.set(nextEntry(known, file, { full: true }, 0));
      return {
        content: `${shown} exists but is empty.`,
        data: { type: 'text', file: { filePath: abs, content: '', numLines: 0, startLine: 1, totalLines: 0 } } satisfies ReadResultData,
      };
    }

    const start = Math.max(1, input.offset ?? 1);
    if (start > total) {
      throw new ToolError(
        `${shown} has ${total} line${total === 1 ? '' : 's'}, so offset ${start} is past its end. Read it with a smaller offset, or none.`,
      );
    }
    const wanted = lines.slice(start - 1, start - 1 + (input.limit ?? DEFAULT_READ_LINES));
    const numbered: string[] = [];
    let chars = 0;
    for (const line of wanted) {
      const text = numberedLine(start + numbered.length, line);
      if (numbered.length > 0 && chars + text.length + 1 > MAX_READ_CHARS) break;
      numbered.push(text);
      chars += text.length + 1;
    }
    const end = start + numbered.length - 1;
    const view: View = start === 1 && end === total ? { full: true } : { full: false, offset: start, limit: numbered.length };

    if (known && known.origin === 'read' && known.hash === file.hash && sameView(known, view)) {
      if (known.mtimeMs !== file.mtimeMs) ctx.fileState.set({ ...known, mtimeMs: file.mtimeMs });
      const range = view.full ? 'the whole file' : `lines ${start}–${end}`;
      return {
        content: `${shown} is unchanged since your earlier Read of ${range} in this conversation: that result is still current, so it is not repeated here.`,
        data: { type: 'file_unchanged', file: { filePath: abs } } satisfies ReadResultData,
      };
    }

    ctx.fileState.set(nextEntry(known, file, view, total));
    let content = numbered.join('\n');
    if (end < total) {
      const cut =
        numbered.length < wanted.length ? ` (the rest of the range asked for did not fit in one Read's ${MAX_READ_CHARS} characters)` : '';
      content +=
        `\n\n[Showing lines ${start}–${end} of ${total}${cut}. ${total - end} more line${total - end === 1 ? '' : 's'}: ` +
        `Read with offset=${end + 1} to continue.]`;
    }
    return {
      content,
      data: {
        type: 'text',
        file: {
          filePath: abs,
          content: lines.slice(start - 1, end).join('\n'),
          numLines: numbered.length,
          startLine: start,
          totalLines: total,
        },
      } satisfies ReadResultData,
    };
  },
});

/** A notebook, whole, as cells with their ids and outputs. */
function readNotebook(abs: string, shown: string, input: ReadInput, ctx: ToolContext): ToolOutput {
  if (input.offset !== undefined || input.limit !== undefined) {
    throw new ToolError(`${shown} is a notebook: it is read whole, as its cells. Read it without offset and limit.`);
  }
  const file = loadTextFile(abs, shown);
  const notebook = parseNotebook(file.text, shown);
  const known = ctx.fileState.get(abs);
  if (known && known.origin === 'read' && known.hash === file.hash && !known.isPartialView) {
    if (known.mtimeMs !== file.mtimeMs) ctx.fileState.set({ ...known, mtimeMs: file.mtimeMs });
    return {
      content: `${shown} is unchanged since your earlier Read of it in this conversation: that result is still current, so it is not repeated here.`,
      data: { type: 'file_unchanged', file: { filePath: abs } } satisfies ReadResultData,
    };
  }
  ctx.fileState.set({ path: abs, hash: file.hash, mtimeMs: file.mtimeMs, isPartialView: false, origin: 'read' });
  return {
    content: renderNotebook(notebook, shown),
    data: { type: 'notebook', file: { filePath: abs, cells: notebook.cells } } satisfies ReadResultData,
  };
}

function sameView(entry: FileStateEntry, view: View): boolean {
  if (view.full) return !entry.isPartialView;
  const last = view.offset + view.limit - 1;
  return entry.isPartialView && (entry.seen ?? []).some(([first, end]) => first === view.offset && end === last);
}

/**
 * The entry after this Read. What the session knew of the same bytes is not forgotten: a full view
 * stays full (and keeps its origin), and a partial view of them (this session's own, or inherited)
 * adds this one's lines to those it saw, becoming full once they span every line.
 */
function nextEntry(known: FileStateEntry | undefined, file: TextFile, view: View, total: number): FileStateEntry {
  const base = { path: file.path, hash: file.hash, mtimeMs: file.mtimeMs };
  if (view.full) return { ...base, isPartialView: false, origin: 'read' };
  const last = view.offset + view.limit - 1;
  if (known && known.hash === file.hash) {
    if (!known.isPartialView) return { ...known, mtimeMs: file.mtimeMs };
    const origin = known.origin === 'inherited' ? 'inherited' : 'read';
    const seen = addRange(known.seen ?? [], view.offset, last);
    if (coversAll(seen, total)) return { ...base, isPartialView: false, origin };
    return { ...base, isPartialView: true, seen, origin };
  }
  return { ...base, isPartialView: true, seen: [[view.offset, last]], origin: 'read' };
}
