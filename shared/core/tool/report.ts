import type { z } from 'zod';
import { defineTool, loadDescription, type Tool } from './tool.js';

export const REPORT_TOOL = 'Report';

/**
 * The tool every agent ends with. Its input schema is the role's output schema, so a report that
 * misses a field is refused by the pipeline's schema check, with the field named, and the model
 * tries again. The loop ends the session when a Report call succeeds.
 */
export function reportTool<S extends z.ZodType>(outputSchema: S): Tool<S> {
  return defineTool({
    name: REPORT_TOOL,
    description: loadDescription(import.meta.url, './report.txt'),
    input: outputSchema,
    level: 'read-only',
    readOnly: true,
    async call() {
      return { content: 'Report accepted. The session ends here.' };
    },
  });
}
