import { z } from 'zod';
import { REPORT_TOOL, reportTool } from '../../shared/core/tool/report.js';
import type { ToolFacts } from '../../shared/core/tool/toolFacts.js';
import { catalogTools } from '../../shared/tools/catalog.js';

/**
 * A tool by name, as the layers below the tools are handed it: the catalog's (or Report's)
 * definition, with its facts; any other name (an MCP tool, Claude Code's WebFetch, a probe) as a
 * tool that says nothing about itself, so every fact takes its default.
 */
export function toolNamed(name: string): ToolFacts {
  if (name === REPORT_TOOL) return reportTool(z.object({}));
  return catalogTools().find((tool) => tool.name === name) ?? { name };
}
