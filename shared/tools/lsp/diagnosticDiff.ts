import type { Diagnostic, DiagnosticSeverity } from 'vscode-languageserver-protocol/node';

/**
 * DiagnosticSeverity.Error (1 in the LSP specification), as a typed constant: the protocol module
 * costs a worker about 16 MB and loads with its first language server, not with every Edit.
 */
const ERROR: DiagnosticSeverity = 1;

/** A file's diagnostics together with the text they were computed for. */
export interface SeenDiagnostics {
  text: string;
  diagnostics: readonly Diagnostic[];
}

/** Errors only: warnings and hints (an unused import, a deprecation) are not what an edit is judged by. */
export function errorsOf(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  return diagnostics.filter((d) => d.severity === undefined || d.severity === ERROR);
}

/**
 * The errors in `after` that were not in `before`. An edit moves lines, so an error is matched by
 * what it says (message, code, source), not where: first to an earlier error saying the same on
 * a line with the same text, then to any earlier error saying the same (its line was edited, and
 * the error stayed). What is left unmatched is new. Without a `before`, every error is new.
 */
export function newErrors(before: SeenDiagnostics | undefined, after: SeenDiagnostics): Diagnostic[] {
  const current = errorsOf(after.diagnostics);
  if (!before) return current;
  const beforeLines = before.text.split(/\r?\n/);
  const afterLines = after.text.split(/\r?\n/);
  const earlier = errorsOf(before.diagnostics).map((d) => ({ key: keyOf(d), line: lineAt(beforeLines, d), used: false }));
  const unmatched = current.map((d) => ({ d, key: keyOf(d), line: lineAt(afterLines, d), matched: false }));
  for (const item of unmatched) {
    const same = earlier.find((old) => !old.used && old.key === item.key && old.line === item.line);
    if (same) {
      same.used = true;
      item.matched = true;
    }
  }
  for (const item of unmatched) {
    if (item.matched) continue;
    const moved = earlier.find((old) => !old.used && old.key === item.key);
    if (moved) {
      moved.used = true;
      item.matched = true;
    }
  }
  return unmatched.filter((item) => !item.matched).map((item) => item.d);
}

function keyOf(d: Diagnostic): string {
  return JSON.stringify([d.source ?? '', d.code ?? '', d.message]);
}

function lineAt(lines: readonly string[], d: Diagnostic): string {
  return (lines[d.range.start.line] ?? '').trim();
}
