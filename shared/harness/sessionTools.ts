import { parseCompactionConfig } from '../context/compaction/compactionConfig.js';
import { contextWindowOf } from '../core/model/modelCapabilities.js';
import type { DeferredTools } from '../core/tool/registry.js';
import type { AnyTool } from '../core/tool/tool.js';
import type { ToolLimit } from '../policy/permissions/toolLimit.js';
import type { McpServers } from '../tools/mcp/mcpServers.js';
import { toolDeferral, toolSearchSetting } from '../tools/mcp/toolDeferral.js';
import { toolSearchTool } from '../tools/toolSearch.js';
import type { HarnessOptions } from './harnessOptions.js';

/** The session's tools in the order the model sees them, which MCP tools are deferred, and why. */
export interface SessionTools {
  all: AnyTool[];
  mcpTools: AnyTool[];
  deferral: { deferred?: DeferredTools; why: string };
}

/**
 * The role's tools and the MCP servers' (each within the slash command's limit), with the MCP
 * tools deferred behind a tool search when their schemas would take too much of the window.
 */
export function sessionTools(options: HarnessOptions, mcp: McpServers, limit: ToolLimit | undefined): SessionTools {
  const ownTools = limit ? options.tools.filter((tool) => limit.allowsTool(tool)) : options.tools;
  const mcpTools = limit ? mcp.tools().filter((tool) => limit.allowsTool(tool)) : mcp.tools();
  const deferral = toolDeferral({
    mcpTools,
    contextWindow:
      parseCompactionConfig(options.compaction ?? {}, 'the compaction options').contextWindow ?? contextWindowOf(options.model.id),
    setting: toolSearchSetting(options.toolSearch === undefined ? process.env : { ORCA_TOOL_SEARCH: options.toolSearch }),
    native: options.model.nativeToolSearch === true,
  });
  // ToolSearch is one of the static tools, before the deferred ones, so the cached prefix holds it from the start.
  const searchTools = deferral.deferred && !deferral.deferred.native ? [toolSearchTool] : [];
  return { all: [...ownTools, ...searchTools, ...mcpTools], mcpTools, deferral };
}
