import type { Diagnostic } from 'vscode-languageserver-protocol/node';

/** Diagnostics listed in one result at most; the rest are counted. */
export const MAX_LISTED_DIAGNOSTICS = 20;
const MESSAGE_CHARS = 300;

/** One diagnostic as a line: `where message [source code]`, its message on one line. */
export function diagnosticLine(where: string, d: Diagnostic): string {
  const text = typeof d.message === 'string' ? d.message : d.message.value;
  const flat = text.replace(/\s*\n\s*/g, ' ').trim();
  const message = flat.length > MESSAGE_CHARS ? `${flat.slice(0, MESSAGE_CHARS)}…` : flat;
  const tag = [d.source, d.code].filter((part) => part !== undefined && part !== '').join(' ');
  return `${where} ${message}${tag ? ` [${tag}]` : ''}`;
}

/** The lines, at most MAX_LISTED_DIAGNOSTICS of them, and how many more there were. */
export function cappedLines(lines: readonly string[]): string[] {
  if (lines.length <= MAX_LISTED_DIAGNOSTICS) return [...lines];
  return [...lines.slice(0, MAX_LISTED_DIAGNOSTICS), `… and ${lines.length - MAX_LISTED_DIAGNOSTICS} more`];
}
