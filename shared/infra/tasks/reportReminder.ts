import type { StopCheck } from '../../core/loop/session.js';
import { loadDescription } from '../../core/tool/tool.js';

export const REPORT_REMINDER = loadDescription(import.meta.url, './reportReminder.md');

/**
 * An agent that ends a turn with text and no tool call has not reported: models used to Claude
 * Code end a sub-agent that way, with a summary. The first time, it is told (reportReminder.md)
 * and goes on; a second stop without Report ends the session as failed (`no_tool_use`), its work
 * not committed. One reminder per session, whatever the other stop checks say.
 */
export function createReportReminder(): StopCheck {
  let reminded = false;
  return {
    async beforeStop(_session, info) {
      if (info.reason !== 'no_tool_use' || reminded) return undefined;
      reminded = true;
      return REPORT_REMINDER;
    },
  };
}
