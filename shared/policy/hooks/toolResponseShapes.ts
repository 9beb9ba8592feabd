import { structuredPatch } from 'diff';
import { z } from 'zod';

/**
 * A tool's result as Claude Code gives it to hooks (`tool_response`) and its input with Claude
 * Code's defaults filled (`tool_input`), built from orca's own results, so a hook written for
 * Claude Code (`.tool_response.stdout`, `.tool_input.replace_all`) reads the same fields. Tools
 * Claude Code does not have, or whose shapes already agree (Read, Glob, Grep), pass as they are.
 */

const BashData = z.looseObject({
  stdout: z.string(),
  stderr: z.string(),
});

const EditData = z.looseObject({
  filePath: z.string(),
  oldString: z.string(),
  newString: z.string(),
  replaceAll: z.boolean(),
  originalFile: z.string(),
  updatedFile: z.string(),
});

const WriteData = z.looseObject({
  type: z.enum(['create', 'update']),
  filePath: z.string(),
  content: z.string(),
  originalFile: z.string().nullable(),
});

/** `diff`'s hunks are Claude Code's `structuredPatch` entries: oldStart, oldLines, newStart, newLines, lines. */
function hunks(before: string, after: string) {
  return structuredPatch('a', 'b', before, after, '', '', { context: 4 }).hunks.map(
    ({ oldStart, oldLines, newStart, newLines, lines }) => ({ oldStart, oldLines, newStart, newLines, lines }),
  );
}

export function claudeCodeToolResponse(toolName: string, data: unknown): unknown {
  switch (toolName) {
    case 'Bash': {
      const bash = BashData.safeParse(data);
      if (!bash.success) return data;
      return { stdout: bash.data.stdout, stderr: bash.data.stderr, interrupted: false, isImage: false, noOutputExpected: false };
    }
    case 'Edit': {
      const edit = EditData.safeParse(data);
      if (!edit.success) return data;
      const { filePath, oldString, newString, originalFile, updatedFile, replaceAll } = edit.data;
      return {
        filePath,
        oldString,
        newString,
        originalFile,
        structuredPatch: hunks(originalFile, updatedFile),
        userModified: false,
        replaceAll,
      };
    }
    case 'Write': {
      const write = WriteData.safeParse(data);
      if (!write.success) return data;
      const { type, filePath, content, originalFile } = write.data;
      return { type, filePath, content, structuredPatch: originalFile === null ? [] : hunks(originalFile, content), originalFile };
    }
    default:
      return data;
  }
}

/** Claude Code's input defaults, as its hooks see them (the model may leave them out). */
const INPUT_DEFAULTS: Record<string, Record<string, unknown>> = {
  Edit: { replace_all: false },
};

export function withClaudeCodeDefaults(toolName: string, input: unknown): unknown {
  const defaults = INPUT_DEFAULTS[toolName];
  if (!defaults || typeof input !== 'object' || input === null || Array.isArray(input)) return input;
  return { ...input, ...Object.fromEntries(Object.entries(defaults).filter(([key]) => !(key in input))) };
}
