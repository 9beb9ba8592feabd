/**
 * Text shown to the model the way `cat -n` shows it: a right-aligned line number, a tab, the line.
 * Read shows files this way and Edit shows the lines it changed the same way, so the numbers the
 * model sees always mean the same thing.
 */

/** Characters of one line shown before it is cut. */
export const MAX_LINE_CHARS = 2000;

/** The lines of LF-normalised text; a final line break does not start another line. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** One numbered line, cut with a visible marker when it is too long to show whole. */
export function numberedLine(lineNumber: number, line: string, maxChars = MAX_LINE_CHARS): string {
  const prefix = `${String(lineNumber).padStart(6)}\t`;
  if (line.length <= maxChars) return prefix + line;
  // Never cut between the two halves of a surrogate pair.
  const cut = isHighSurrogate(line.charCodeAt(maxChars - 1)) ? maxChars - 1 : maxChars;
  return `${prefix}${line.slice(0, cut)}… [line cut: ${line.length} characters in all]`;
}

/** `lines` numbered from `firstLineNumber`, one per output line. */
export function numberLines(lines: readonly string[], firstLineNumber: number, maxChars = MAX_LINE_CHARS): string {
  return lines.map((line, i) => numberedLine(firstLineNumber + i, line, maxChars)).join('\n');
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
