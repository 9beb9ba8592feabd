import { type DeferredTools, inputSchema } from '../../core/tool/registry.js';
import type { AnyTool } from '../../core/tool/tool.js';

/** The share of the context window MCP tool schemas may take before they are deferred (`auto`). */
export const DEFAULT_DEFERRAL_SHARE = 0.1;

export type ToolSearchSetting = { mode: 'on' } | { mode: 'off' } | { mode: 'auto'; share: number };

/**
 * `ORCA_TOOL_SEARCH`: `auto` (the default: defer MCP tools when their schemas would take more
 * than 10% of the context window; `auto:5` for 5%), `on` (always defer them), `off` (never).
 */
export function toolSearchSetting(env: NodeJS.ProcessEnv = process.env): ToolSearchSetting {
  const value = (env.ORCA_TOOL_SEARCH ?? '').trim().toLowerCase();
  if (value === '' || value === 'auto') return { mode: 'auto', share: DEFAULT_DEFERRAL_SHARE };
  if (value === 'on' || value === 'true' || value === '1') return { mode: 'on' };
  if (value === 'off' || value === 'false' || value === '0') return { mode: 'off' };
  const percent = /^auto:(\d+(?:\.\d+)?)$/.exec(value)?.[1];
  if (percent !== undefined && Number(percent) > 0 && Number(percent) <= 100) return { mode: 'auto', share: Number(percent) / 100 };
  throw new Error(`ORCA_TOOL_SEARCH=${env.ORCA_TOOL_SEARCH} is not a setting: use auto, auto:<percent of the window>, on or off`);
}

/** About how many tokens a tool's spec takes in a request (4 characters a token, as the context layer counts). */
export function specTokens(tool: AnyTool): number {
  const spec = { name: tool.name, description: tool.description, input_schema: tool.inputJsonSchema ?? inputSchema(tool.input) };
  return Math.ceil(JSON.stringify(spec).length / 4);
}

/**
 * Whether the MCP tools' schemas are deferred, and why (a line for the transcript). Deferred
 * tools are found with the API's own tool search when the model has it, else with ToolSearch.
 */
export function toolDeferral(options: {
  mcpTools: readonly AnyTool[];
  contextWindow: number;
  setting: ToolSearchSetting;
  native: boolean;
}): { deferred?: DeferredTools; why: string } {
  const { mcpTools, setting } = options;
  if (mcpTools.length === 0) return { why: 'no MCP tools' };
  const tokens = mcpTools.reduce((sum, tool) => sum + specTokens(tool), 0);
  const size = `the ${mcpTools.length} MCP tools' schemas take about ${tokens} tokens`;
  if (setting.mode === 'off') return { why: `${size}; ORCA_TOOL_SEARCH=off sends them all` };
  const limit = setting.mode === 'auto' ? Math.floor(options.contextWindow * setting.share) : 0;
  if (setting.mode === 'auto' && tokens <= limit) {
    return { why: `${size}, within ${Math.round(setting.share * 100)}% of the ${options.contextWindow}-token window: sent as they are` };
  }
  const by = options.native ? "the API's tool search" : 'ToolSearch';
  const reason =
    setting.mode === 'on'
      ? 'ORCA_TOOL_SEARCH=on'
      : `more than ${Math.round(setting.share * 100)}% of the ${options.contextWindow}-token window`;
  return {
    deferred: { names: mcpTools.map((tool) => tool.name), native: options.native },
    why: `${size}, ${reason}: deferred, found with ${by}`,
  };
}
