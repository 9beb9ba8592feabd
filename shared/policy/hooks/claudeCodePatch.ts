import type { StructuredPatchHunk } from 'diff';

/** One hunk of Claude Code's `structuredPatch`, as its hooks read it in an edit's `tool_response`. */
export type ClaudeCodeHunk = Pick<StructuredPatchHunk, 'oldStart' | 'oldLines' | 'newStart' | 'newLines' | 'lines'>;

/**
 * The change from `before` to `after` as Claude Code's `structuredPatch` (`diff`'s hunks, four
 * lines of context), for the tools whose hook responses carry one (Edit, Write). `diff` is loaded
 * on the first patch: the tools that use this are imported by every CLI command that reads roles.
 */
export async function claudeCodePatch(before: string, after: string): Promise<ClaudeCodeHunk[]> {
  const { structuredPatch } = await import('diff');
  return structuredPatch('a', 'b', before, after, '', '', { context: 4 }).hunks.map(
    ({ oldStart, oldLines, newStart, newLines, lines }) => ({ oldStart, oldLines, newStart, newLines, lines }),
  );
}
