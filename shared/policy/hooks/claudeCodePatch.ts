import { structuredPatch } from 'diff';

/** One hunk of Claude Code's `structuredPatch`, as its hooks read it in an edit's `tool_response`. */
export interface ClaudeCodeHunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
}

/**
 * The change from `before` to `after` as Claude Code's `structuredPatch` (`diff`'s hunks, four
 * lines of context), for the tools whose hook responses carry one (Edit, Write).
 */
export function claudeCodePatch(before: string, after: string): ClaudeCodeHunk[] {
  return structuredPatch('a', 'b', before, after, '', '', { context: 4 }).hunks.map(
    ({ oldStart, oldLines, newStart, newLines, lines }) => ({ oldStart, oldLines, newStart, newLines, lines }),
  );
}
