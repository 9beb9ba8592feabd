import { z } from 'zod';
import { ToolError } from '../core/boundary/toolError.js';
import { writeFileAtomic } from '../core/files/atomicWrite.js';
import { firstUnseenLine, rangesAfterReplace } from '../core/files/lineRanges.js';
import { numberLines, splitLines } from '../core/files/numberedLines.js';
import type { FileStateEntry } from '../core/files/readFileState.js';
import { checkFreshness, describeView, recordPartialEdit, recordWritten } from '../core/files/staleness.js';
import {
  dominantLineEnding,
  encodeText,
  lineEndingView,
  normalizeLineEndings,
  type TextFormat,
  UTF8_NO_BOM,
} from '../core/files/textCodec.js';
import { loadTextFile, statIfExists } from '../core/files/textFile.js';
import { defineTool, loadDescription, type ToolContext, type ToolOutput } from '../core/tool/tool.js';
import { claudeCodePatch } from '../policy/hooks/claudeCodePatch.js';

export const EDIT_TOOL = 'Edit';

export const EditInputSchema = z.strictObject({
  file_path: z.string().min(1).describe('The file to change: an absolute path, or a path relative to the workspace root.'),
  old_string: z.string().describe('The exact text to replace, as it is in the file.'),
  new_string: z.string().describe('The text to put in its place (must differ from old_string).'),
  replace_all: z.boolean().optional().describe('Replace every occurrence of old_string (default false).'),
});
export type EditInput = z.infer<typeof EditInputSchema>;

/** Lines of context shown around the edited region, and the most lines the snippet shows. */
const SNIPPET_CONTEXT = 3;
const SNIPPET_MAX_LINES = 30;
const SNIPPET_LINE_CHARS = 500;

/**
 * Edit: replaces exact text in a file the session has read.
 *
 * The rules, in the order they are checked:
 * - A notebook (`.ipynb`) is refused: its cells are changed with NotebookEdit.
 * - old_string equal to new_string is refused (nothing to do).
 * - The path must resolve inside the workspace for writing (no `..`, absolute path or symlink out).
 * - A missing file: an empty old_string creates it with new_string (parent folders too); any other
 *   old_string is refused. Directories, binary files and text that cannot be round-tripped are
 *   refused (files/textFile.ts) and left as they are.
 * - An empty old_string fills an empty file (nothing in it could have been missed, so no Read is
 *   needed) and is refused on a non-empty one.
 * - The session must have read the file, and the bytes must be the ones it saw ("re-read it"). When
 *   only the mtime moved, the entry is refreshed and the edit goes on. A file seen only in part
 *   (Read with offset/limit, or cut at Read's 100,000 characters) may be edited where it was seen:
 *   every match of old_string must lie wholly inside lines seen of these bytes; otherwise the
 *   refusal names the lines of the unseen matches and the offset to Read. After such an edit the
 *   entry stays partial, its seen lines renumbered by the edit. An `inherited` entry (a parent's
 *   read, hash-checked against this worktree) follows the same rule with the lines the parent saw.
 * - old_string must be found (whitespace and indentation exactly), and found once unless
 *   replace_all is set; the count is given when it is not.
 * - Matching is on the LF-normalised text; the replacement is spliced into the stored text, so
 *   the file keeps its encoding, BOM and line endings (a CRLF file stays CRLF, a mixed file keeps
 *   every untouched ending). new_string is inserted literally: no `$&` patterns.
 * - From the freshness check to the write, everything is synchronous: nothing can change the file
 *   state in between. The write is atomic, and the entry is refreshed (origin `written`, full
 *   view) so a second edit needs no new Read.
 */
export const editTool = defineTool({
  name: EDIT_TOOL,
  description: loadDescription(import.meta.url, './edit.txt'),
  input: EditInputSchema,
  level: 'workspace-write',
  readOnly: false,
  family: 'edit',
  rule: { kind: 'path', field: 'file_path' },
  untrustedOutput: false,
  results: { kind: 'file-change', verb: 'edited' },
  hookResponse: claudeCodeEditResponse,
  hookInputDefaults: { replace_all: false },
  validate(input) {
    if (input.file_path.toLowerCase().endsWith('.ipynb')) {
      return `${input.file_path} is a Jupyter notebook: change its cells with NotebookEdit (Read shows their ids).`;
    }
    if (normalizeLineEndings(input.old_string) === normalizeLineEndings(input.new_string)) {
      return 'old_string and new_string are the same, so this edit would change nothing. Put the new text in new_string.';
    }
    return undefined;
  },
  async call(input, ctx) {
    const abs = ctx.workspace.resolve(input.file_path, 'write');
    const shown = ctx.workspace.display(abs);
    const oldString = normalizeLineEndings(input.old_string);
    const newString = normalizeLineEndings(input.new_string);

    if (!statIfExists(abs)) {
      if (oldString !== '') {
        throw new ToolError(
          `${shown} does not exist. Check the path (Glob finds files by name). To create a file, use Write, or Edit with an empty old_string.`,
        );
      }
      return fill(ctx, abs, shown, newString, UTF8_NO_BOM, 'created');
    }
    const file = loadTextFile(abs, shown);

    if (oldString === '') {
      if (file.text !== '') {
        throw new ToolError(
          `old_string is empty, but ${shown} is not: an empty old_string only creates a missing file or fills an empty one. ` +
            'Put the text to replace in old_string (to insert, include a neighbouring line and repeat it in new_string), ' +
            'or Read the file and use Write to replace all of it.',
        );
      }
      return fill(ctx, abs, shown, newString, file.format, 'filled');
    }

    const partial = freshEnough(ctx, file, shown);
    const view = lineEndingView(file.text);
    const matches = matchesToReplace(view.text, oldString, shown, input.replace_all === true);
    if (partial) refuseUnseenMatches(shown, partial, view.text, matches, oldString);

    const stored = replaced(file.text, view, matches, oldString, newString);
    const bytes = encodeText(stored, file.format);
    const written = writeFileAtomic(abs, bytes, { label: shown });
    if (partial) {
      const spans = matches.map((at) => ({ start: at, end: at + oldString.length }));
      recordPartialEdit(
        ctx.fileState,
        partial,
        bytes,
        written.mtimeMs,
        rangesAfterReplace(view.text, partial.seen ?? [], spans, newString),
      );
    } else recordWritten(ctx.fileState, abs, bytes, written.mtimeMs);

    const count = matches.length;
    const edited = normalizeLineEndings(stored);
    const first = lineAt(edited, matches[0]!);
    const last = first + (newString.match(/\n/g)?.length ?? 0);
    return {
      content: `Edited ${shown}: ${count === 1 ? '1 replacement' : `${count} replacements (the first shown)`}.\n${snippet(edited, first, last)}`,
      data: {
        filePath: abs,
        oldString: input.old_string,
        newString: input.new_string,
        replaceAll: input.replace_all ?? false,
        replacements: count,
        originalFile: file.text,
        updatedFile: stored,
      },
    };
  },
});

/** What Edit's data holds, checked before it is reshaped: hooks get the data as it is when it is not this. */
const EditData = z.looseObject({
  filePath: z.string(),
  oldString: z.string(),
  newString: z.string(),
  replaceAll: z.boolean(),
  originalFile: z.string(),
  updatedFile: z.string(),
});

/** Claude Code's `tool_response` for an edit: its fields, and the change as a `structuredPatch`. */
async function claudeCodeEditResponse(data: unknown): Promise<unknown> {
  const edit = EditData.safeParse(data);
  if (!edit.success) return data;
  const { filePath, oldString, newString, originalFile, updatedFile, replaceAll } = edit.data;
  return {
    filePath,
    oldString,
    newString,
    originalFile,
    structuredPatch: await claudeCodePatch(originalFile, updatedFile),
    userModified: false,
    replaceAll,
  };
}

/**
 * A file seen in part may be edited where the agent has seen it: every match must lie wholly in
 * lines it saw of these bytes. Otherwise the refusal names the lines of the matches it has not
 * seen and where to Read them.
 */
/**
 * The file must have been read in this session and not changed on disk since: else the edit is
 * refused, saying what to do. Returns the read's entry when only part of the file was read (each
 * match must then be in what was seen).
 */
function freshEnough(ctx: ToolContext, file: ReturnType<typeof loadTextFile>, shown: string): FileStateEntry | undefined {
  const freshness = checkFreshness(ctx.fileState, file);
  if (freshness.kind === 'unread') {
    throw new ToolError(
      `${shown} has not been read in this session. Read it first (the whole file, without offset or limit), then edit it.`,
    );
  }
  if (freshness.kind === 'changed') {
    throw new ToolError(
      `${shown} has changed on disk since you last read it (modified ${new Date(freshness.mtimeMs).toISOString()}), ` +
        'by a command, a formatter or someone else. Re-read it, then make your edit against its current content.',
    );
  }
  return freshness.kind === 'partial' ? freshness.entry : undefined;
}

/** Where `oldString` is in the text: exactly one place, or every place with `replaceAll`; else the edit is refused, saying where. */
function matchesToReplace(text: string, oldString: string, shown: string, replaceAll: boolean): number[] {
  const matches = occurrences(text, oldString);
  if (matches.length === 0) throw new ToolError(noMatchMessage(shown, text, oldString));
  if (matches.length > 1 && !replaceAll) {
    const lines = matches.slice(0, 10).map((at) => lineAt(text, at));
    throw new ToolError(
      `old_string matches ${matches.length} places in ${shown} (lines ${lines.join(', ')}${matches.length > 10 ? ', …' : ''}). ` +
        `Include more surrounding lines in old_string so it matches exactly one place, or set replace_all to true to change all ${matches.length}.`,
    );
  }
  return matches;
}

/** The stored text with each match replaced, in the file's own line endings. */
function replaced(
  stored: string,
  view: ReturnType<typeof lineEndingView>,
  matches: readonly number[],
  oldString: string,
  newString: string,
): string {
  const eol = dominantLineEnding(stored);
  const inserted = eol === '\n' ? newString : newString.split('\n').join(eol);
  let out = '';
  let from = 0;
  for (const at of matches) {
    out += stored.slice(from, view.toStored(at)) + inserted;
    from = view.toStored(at + oldString.length);
  }
  return out + stored.slice(from);
}

function refuseUnseenMatches(shown: string, entry: FileStateEntry, text: string, matches: readonly number[], oldString: string): void {
  const seen = entry.seen ?? [];
  const unseen: Array<{ first: number; last: number; from: number }> = [];
  for (const at of matches) {
    const first = lineAt(text, at);
    const last = lineAt(text, at + Math.max(0, oldString.length - 1));
    const from = firstUnseenLine(seen, first, last);
    if (from !== undefined) unseen.push({ first, last, from });
  }
  if (unseen.length === 0) return;
  const lines = unseen.slice(0, 10).map(({ first, last }) => (first === last ? `${first}` : `${first}–${last}`));
  const which =
    matches.length === 1
      ? 'old_string is'
      : `${unseen.length} of the ${matches.length} matches of old_string ${unseen.length === 1 ? 'is' : 'are'}`;
  const first = unseen[0]!;
  const plural = unseen.length > 1 || first.first !== first.last;
  throw new ToolError(
    `${which} at line${plural ? 's' : ''} ${lines.join(', ')}${unseen.length > 10 ? ', …' : ''} of ${shown}, which you have not seen ` +
      `(you have seen ${describeView(entry)}). Read it with offset=${first.from} to see ${unseen.length === 1 ? 'that match' : 'the first of them'}, then edit it.`,
  );
}

/** Writes new_string into a missing or empty file. */
function fill(ctx: ToolContext, abs: string, shown: string, text: string, format: TextFormat, how: 'created' | 'filled'): ToolOutput {
  const bytes = encodeText(text, format);
  const written = writeFileAtomic(abs, bytes, { createParents: true, label: shown });
  recordWritten(ctx.fileState, abs, bytes, written.mtimeMs);
  const lines = splitLines(text).length;
  return {
    content: `${how === 'created' ? 'Created' : 'Filled the empty file'} ${shown} with new_string (${lines} line${lines === 1 ? '' : 's'}).`,
    data: { filePath: abs, oldString: '', newString: text, replaceAll: false, replacements: 1, originalFile: '', updatedFile: text },
  };
}

/** Start offsets of the non-overlapping occurrences of `needle`, left to right. */
function occurrences(haystack: string, needle: string): number[] {
  const found: number[] = [];
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) found.push(at);
  return found;
}

/** The 1-based line that offset `index` of LF-normalised `text` is on. */
function lineAt(text: string, index: number): number {
  let line = 1;
  for (let at = text.indexOf('\n'); at !== -1 && at < index; at = text.indexOf('\n', at + 1)) line += 1;
  return line;
}

function noMatchMessage(shown: string, text: string, oldString: string): string {
  const hints: string[] = [];
  if (/^ *\d+\t/m.test(oldString)) {
    hints.push("old_string seems to start with Read's line-number prefix (spaces, a number, a tab): leave the prefix out.");
  }
  const squeeze = (s: string) =>
    s
      .split('\n')
      .map((line) => line.trim())
      .join('\n');
  if (squeeze(text).includes(squeeze(oldString))) {
    hints.push('Text that differs only in indentation or trailing spaces is in the file: copy the whitespace exactly.');
  }
  return [
    `old_string was not found in ${shown}. It must match the file exactly, including whitespace, indentation (tabs or spaces) and line breaks.`,
    ...hints,
    'If you are not sure of the current text, Read the file again.',
  ].join(' ');
}

/** The edited lines with a little context, numbered as Read numbers them. */
function snippet(text: string, first: number, last: number): string {
  const lines = splitLines(text);
  if (lines.length === 0) return '(the file is now empty)';
  const from = Math.max(1, first - SNIPPET_CONTEXT);
  const to = Math.min(lines.length, last + SNIPPET_CONTEXT, from + SNIPPET_MAX_LINES - 1);
  if (from > to) return '';
  const more = Math.min(lines.length, last + SNIPPET_CONTEXT) - to;
  const body = numberLines(lines.slice(from - 1, to), from, SNIPPET_LINE_CHARS);
  return more > 0 ? `${body}\n… (${more} more edited line${more === 1 ? '' : 's'} not shown)` : body;
}
