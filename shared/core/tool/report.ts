import type { z } from 'zod';
import { defineTool, loadDescription, type Tool } from './tool.js';

export const REPORT_TOOL = 'Report';

/** The reply to a Report that fits the schema: the gates have not spoken yet. */
export const RECEIVED = 'Report received; orca is checking it.';

/**
 * The tool every agent ends with. Its input schema is the role's output schema, so a report that
 * misses a field is refused by the pipeline's schema check, with the field named, and the model
 * tries again. A report that fits is only received: the stop checks (the report gate on its
 * claims, the Stop hooks) judge it next, and their verdict follows this reply in the same turn
 * when they send it back. The loop ends the session when none does.
 */
export function reportTool<S extends z.ZodType>(outputSchema: S): Tool<S> {
  return defineTool({
    name: REPORT_TOOL,
    description: loadDescription(import.meta.url, './report.txt'),
    input: outputSchema,
    level: 'read-only',
    readOnly: true,
    untrustedOutput: false,
    async call() {
      return { content: RECEIVED };
    },
  });
}
