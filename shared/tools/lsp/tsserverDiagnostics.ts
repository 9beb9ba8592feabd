import { type Diagnostic, DiagnosticSeverity } from 'vscode-languageserver-protocol/node';
import { z } from 'zod';
import { describeZodError } from '../../core/boundary/zodIssues.js';

/** tsserver's `syntacticDiagnosticsSync` / `semanticDiagnosticsSync` answer, as the language server passes it on. */
const Location = z.object({ line: z.number().int(), offset: z.number().int() });
const TsserverDiagnosticsResponseSchema = z.object({
  success: z.boolean(),
  message: z.string().optional(),
  body: z
    .array(
      z.object({
        start: Location,
        end: Location,
        text: z.string(),
        code: z.number().int().optional(),
        category: z.string(),
        source: z.string().optional(),
      }),
    )
    .optional(),
});

const SEVERITY: Record<string, DiagnosticSeverity> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  suggestion: DiagnosticSeverity.Hint,
  message: DiagnosticSeverity.Information,
};

/** The diagnostics in one tsserver answer, as LSP diagnostics (0-based positions); throws on a failed or malformed answer. */
export function tsserverDiagnostics(response: unknown, what: string): Diagnostic[] {
  const parsed = TsserverDiagnosticsResponseSchema.safeParse(response);
  if (!parsed.success) throw new Error(describeZodError(parsed.error, `tsserver's answer to ${what}`));
  if (!parsed.data.success) throw new Error(`tsserver could not give ${what}: ${parsed.data.message ?? 'no reason given'}`);
  return (parsed.data.body ?? []).map((item) => ({
    range: {
      start: { line: item.start.line - 1, character: item.start.offset - 1 },
      end: { line: item.end.line - 1, character: item.end.offset - 1 },
    },
    message: item.text,
    severity: SEVERITY[item.category] ?? DiagnosticSeverity.Information,
    code: item.code,
    source: item.source ?? 'ts',
  }));
}
