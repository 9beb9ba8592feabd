import type { AgentSession, StopCheck } from '../../core/loop/session.js';
import { loadDescription } from '../../core/tool/tool.js';
import { cappedLines } from './diagnosticText.js';

const REMINDER = loadDescription(import.meta.url, './diagnosticsReminder.md');

export interface DiagnosticsReminderOptions {
  /** Whether a Report claims the work is done (a worker's with nothing `unresolved`); by default every Report does. */
  claimsSuccess?: (report: unknown) => boolean;
  maxReminders?: number;
}

/**
 * The language servers' part of the evidence on a Report: when the agent reports success while
 * the files it edited have errors its edits brought (EditDiagnostics.outstanding: each file as it
 * is now against its errors before the session's first edit of it), it is sent back once
 * (`maxReminders`) with those errors listed. After that it may end, and a notice says with
 * which errors. A server that cannot answer now is a notice, not a reminder: its silence is no
 * evidence either way.
 */
export function createDiagnosticsReminder(options: DiagnosticsReminderOptions = {}): StopCheck {
  const maxReminders = options.maxReminders ?? 1;
  const claimsSuccess = options.claimsSuccess ?? (() => true);
  let reminders = 0;
  return {
    async beforeStop(session: AgentSession, info) {
      const diagnostics = session.toolContext.services.editDiagnostics;
      if (info.reason !== 'report' || !diagnostics || !claimsSuccess(info.report)) return undefined;
      let errors: string[];
      try {
        errors = await diagnostics.outstanding(session.toolContext);
      } catch (error) {
        session.toolContext.emit({
          type: 'notice',
          level: 'warn',
          message: `the edited files could not be checked for new errors before the Report: ${error instanceof Error ? error.message : String(error)}`,
        });
        return undefined;
      }
      if (errors.length === 0) return undefined;
      const listed = cappedLines(errors).join('\n');
      if (reminders >= maxReminders) {
        session.toolContext.emit({
          type: 'notice',
          level: 'warn',
          message: `reported with ${errors.length} new error(s) in edited files:\n${listed}`,
        });
        return undefined;
      }
      reminders += 1;
      session.toolContext.emit({
        type: 'notice',
        level: 'warn',
        message: `Report sent back: ${errors.length} new error(s) in edited files`,
      });
      return REMINDER.replace('{errors}', listed);
    },
  };
}
