import type { AgentSession } from '../core/loop/session.js';
import type { McpServers } from '../tools/mcp/mcpServers.js';
import type { HarnessOptions } from './harnessOptions.js';
import type { SessionTools } from './sessionTools.js';

/**
 * The session's first events, waiting for the loop: the warnings gathered while it was built, the
 * MCP servers' problems and which of them run (with where their tools went), and the memory cards it was given.
 */
export function queueSessionStart(
  session: AgentSession,
  { notices, mcp, tools, memory }: { notices: string[]; mcp: McpServers; tools: SessionTools; memory: HarnessOptions['memory'] },
): void {
  for (const message of notices) session.pending.push({ type: 'notice', level: 'warn', message });
  for (const message of mcp.problems) session.pending.push({ type: 'notice', level: 'warn', message });
  if (tools.mcpTools.length > 0) {
    const running = mcp.running.map((server) => `${server.name} (${server.tools.length} tools)`).join(', ');
    session.pending.push({ type: 'notice', level: 'info', message: `MCP servers: ${running}; ${tools.deferral.why}` });
  }
  if (memory) {
    session.pending.push({
      type: 'memory',
      scope: memory.scope,
      cards: memory.cards.map(({ id, type, title, scope, origin, score }) => ({ id, type, title, scope, origin, score })),
    });
  }
}
