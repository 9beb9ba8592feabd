import { z } from 'zod';
import { ToolError } from '../core/boundary/toolError.js';
import { writeFileAtomic } from '../core/files/atomicWrite.js';
import { splitLines } from '../core/files/numberedLines.js';
import { checkFreshness, describeView, recordWritten } from '../core/files/staleness.js';
import { encodeText, normalizeLineEndings, type TextFormat, UTF8_NO_BOM } from '../core/files/textCodec.js';
import { loadTextFile, statIfExists } from '../core/files/textFile.js';
import { defineTool, loadDescription } from '../core/tool/tool.js';
import { claudeCodePatch } from '../policy/hooks/claudeCodePatch.js';

export const WRITE_TOOL = 'Write';

export const WriteInputSchema = z.strictObject({
  file_path: z.string().min(1).describe('The file to write: an absolute path, or a path relative to the workspace root.'),
  content: z.string().describe('The whole new content of the file, written exactly as given.'),
});
export type WriteInput = z.infer<typeof WriteInputSchema>;

/**
 * Write: creates a file or replaces all of it.
 *
 * The rules:
 * - The path must resolve inside the workspace for writing: `..`, absolute paths, symlinks (also
 *   dangling ones) that lead outside are refused. Missing parent folders are created.
 * - A new file needs nothing more.
 * - An existing file must be text this session has read whole, with the bytes still the ones it
 *   saw: unread, partial, changed since the read are refused. An `inherited` entry (a parent's
 *   read) is refused too: overwriting everything needs this agent's own full view, not just the
 *   proof a unique old_string gives Edit. When only the mtime moved, the entry is refreshed.
 * - `content` is written as given, line endings included (Claude Code's behaviour): a CRLF file
 *   written with LF content becomes LF. An existing file keeps its encoding and BOM; a new file
 *   is UTF-8 without BOM.
 * - Synchronous from the freshness check to the atomic write; afterwards the entry is refreshed
 *   (origin `written`, full view), so Edit can follow without a Read.
 */
export const writeTool = defineTool({
  name: WRITE_TOOL,
  description: loadDescription(import.meta.url, './write.txt'),
  input: WriteInputSchema,
  level: 'workspace-write',
  readOnly: false,
  family: 'edit',
  rule: { kind: 'path', field: 'file_path' },
  untrustedOutput: false,
  results: { kind: 'file-change', verb: 'written' },
  hookResponse: claudeCodeWriteResponse,
  async call(input, ctx) {
    const abs = ctx.workspace.resolve(input.file_path, 'write');
    const shown = ctx.workspace.display(abs);
    const exists = statIfExists(abs) !== undefined;

    let format: TextFormat = UTF8_NO_BOM;
    let originalFile: string | null = null;
    if (exists) {
      const file = loadTextFile(abs, shown);
      originalFile = file.text;
      const freshness = checkFreshness(ctx.fileState, file);
      if (freshness.kind === 'unread') {
        throw new ToolError(
          `${shown} already exists and has not been read in this session. Read it first (the whole file) before overwriting it, ` +
            'or use Edit to change part of it.',
        );
      }
      if (freshness.kind === 'partial') {
        throw new ToolError(
          `You have seen ${describeView(freshness.entry)} of ${shown}; overwriting it would drop lines you have not seen. ` +
            'Read the whole file first (without offset or limit; for a long file, continue with offset until the end), or use Edit.',
        );
      }
      if (freshness.kind === 'changed') {
        throw new ToolError(
          `${shown} has changed on disk since you last read it (modified ${new Date(freshness.mtimeMs).toISOString()}), ` +
            'by a command, a formatter or someone else. Re-read it before overwriting it, so those changes are not lost.',
        );
      }
      if (freshness.entry.origin === 'inherited') {
        throw new ToolError(
          `${shown} is known to you only from the agent that started you. Read it yourself before replacing all of it, or use Edit to change part of it.`,
        );
      }
      format = file.format;
    }

    const bytes = encodeText(input.content, format);
    const written = writeFileAtomic(abs, bytes, { createParents: true, label: shown });
    recordWritten(ctx.fileState, abs, bytes, written.mtimeMs);
    const lines = splitLines(normalizeLineEndings(input.content)).length;
    const size = `${lines} line${lines === 1 ? '' : 's'}, ${bytes.length} bytes`;
    return {
      content: exists ? `Wrote ${shown}: its whole content is now what you gave (${size}).` : `Created ${shown} (${size}).`,
      data: { type: exists ? 'update' : 'create', filePath: abs, content: input.content, originalFile },
    };
  },
});

/** What Write's data holds, checked before it is reshaped: hooks get the data as it is when it is not this. */
const WriteData = z.looseObject({
  type: z.enum(['create', 'update']),
  filePath: z.string(),
  content: z.string(),
  originalFile: z.string().nullable(),
});

/** Claude Code's `tool_response` for a write: its fields, and the change to an existing file as a `structuredPatch`. */
async function claudeCodeWriteResponse(data: unknown): Promise<unknown> {
  const write = WriteData.safeParse(data);
  if (!write.success) return data;
  const { type, filePath, content, originalFile } = write.data;
  return {
    type,
    filePath,
    content,
    structuredPatch: originalFile === null ? [] : await claudeCodePatch(originalFile, content),
    originalFile,
  };
}
