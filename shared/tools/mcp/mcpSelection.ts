import { type ApprovalSource, McpConfigError, type McpServerEntry, parseInlineServers, projectServerApproval } from './mcpConfig.js';

/** A role's `mcpServers`: names of configured servers, or inline definitions (`{ name: { command, … } }`). */
export type RoleMcpServers = ReadonlyArray<string | Record<string, unknown>>;

export interface McpSelection {
  /** The servers to start, in the order the role names them. */
  start: McpServerEntry[];
  /** The servers the role names that are not started, and why (for the agent and the transcript). */
  refused: Array<{ name: string; reason: string }>;
}

/**
 * Which servers an agent gets: the ones its role names, looked up in the configured servers
 * (`available` in precedence order: the first of a name wins, the project's before the user's
 * as in Claude Code) or defined inline. A project server (of `.mcp.json`, or inline in an agent
 * file of the repository) runs only once the user approved it.
 */
export function selectServers(options: {
  available: readonly McpServerEntry[];
  wanted: RoleMcpServers;
  roleSource: string;
  approval: readonly ApprovalSource[];
}): McpSelection {
  const selection: McpSelection = { start: [], refused: [] };
  const seen = new Set<string>();
  for (const item of options.wanted) {
    let entries: McpServerEntry[];
    if (typeof item === 'string') {
      const found = options.available.find((entry) => entry.name === item);
      if (!found) {
        const known = options.available.map((entry) => entry.name);
        selection.refused.push({
          name: item,
          reason: `no MCP server of that name is configured (.mcp.json at the repository root, or mcpServers in ~/.claude.json)${known.length > 0 ? `; the configured ones are ${known.join(', ')}` : ''}`,
        });
        continue;
      }
      entries = [found];
    } else {
      try {
        entries = parseInlineServers(item, options.roleSource);
      } catch (error) {
        if (!(error instanceof McpConfigError)) throw error;
        selection.refused.push({ name: Object.keys(item).join(', ') || '(unnamed)', reason: error.message });
        continue;
      }
    }
    for (const entry of entries) {
      if (seen.has(entry.name)) continue;
      seen.add(entry.name);
      if (entry.scope !== 'user') {
        const approval = projectServerApproval(entry.name, options.approval);
        if (!approval.approved) {
          selection.refused.push({ name: entry.name, reason: approval.reason });
          continue;
        }
      }
      selection.start.push(entry);
    }
  }
  return selection;
}
