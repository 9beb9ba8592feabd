/**
 * How an MCP tool is named for the model, as in Claude Code: `mcp__<server>__<tool>`, each part
 * with every character the API does not take in a tool name turned into `_`. Permission rules and
 * hook matchers name MCP tools this way (`mcp__github__create_issue`, `mcp__github`, `mcp__.*`).
 */
export function mcpToolName(server: string, tool: string): string {
  return `mcp__${normalize(server)}__${normalize(tool)}`;
}

/** The prefix every tool of a server's name starts with: `mcp__github__`. */
export function mcpServerPrefix(server: string): string {
  return `mcp__${normalize(server)}__`;
}

function normalize(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, '_');
}

/** The API's limit on a tool name's length. */
export const MAX_TOOL_NAME = 64;
