import type * as acp from '@agentclientprotocol/sdk';
import type { AcpAgent } from '../../shared/core/agents/agentBackend.js';
import { REPORT_TOOL } from '../../shared/core/tool/report.js';
import { loadDescription } from '../../shared/core/tool/tool.js';
import { ORCA_MCP_NAME, type OrcaMcpEndpoint } from './orcaMcpServer.js';

const INSTRUCTIONS = loadDescription(import.meta.url, './acpInstructions.md');

/** What an agent's session is opened with: the agent, its worktree (its cwd) and its role's own instructions. */
export interface SessionFor {
  agent: AcpAgent;
  root: string;
  roleInstructions: string;
}

/**
 * orca's instructions for an external agent: its worktree, the tools of orca's it must use, the
 * Report, and its role's own. Known before the session is built, so `session/new` (which for
 * Claude Code carries them) can be sent while the job is still setting the session up.
 */
export function agentInstructions({ agent, root, roleInstructions }: SessionFor): string {
  const replaced = agent.replaces;
  const tools =
    replaced.length > 0
      ? `Your ${replaced.join(', ')} are orca's: use the tools of the MCP server \`orca\` (${replaced.map((name) => `\`${name}\``).join(', ')}) for every file read, write, edit and command.`
      : 'Your file reads and writes and your terminal commands go through orca, which holds them to its rules: a refusal says why.';
  return INSTRUCTIONS.replace('{{cwd}}', root)
    .replace('{{tools}}', tools)
    .replaceAll('{{report}}', REPORT_TOOL)
    .replace('{{role}}', roleInstructions);
}

/**
 * Claude Code's permission rule for every tool of orca's MCP server (`mcp__orca__Read` …), and no
 * other server's. orca's ACP client allows each such call the moment it is asked (acpClient.ts:
 * orca's tools are judged when they run, by the session's pipeline behind the MCP call), so Claude
 * Code asking first is a round trip (it, the adapter, orca and back) per call that decides nothing.
 * The rule skips that ask only: a call still runs through orca's permission rules, hooks, role
 * mode and owned paths, and Claude Code's own deny and ask rules still come before it.
 */
export const ORCA_TOOLS_RULE = `mcp__${ORCA_MCP_NAME}`;

/** `session/new`: orca's MCP server, and for Claude Code the Agent SDK's options (orca's instructions appended, its replaced tools gone, orca's own not asked about). */
export function newSessionRequest(of: SessionFor, mcp: OrcaMcpEndpoint): acp.NewSessionRequest {
  const mcpServers: acp.McpServer[] = [{ type: 'http', name: ORCA_MCP_NAME, url: mcp.url, headers: mcp.headers }];
  if (of.agent.session !== 'claude-code') return { cwd: of.root, mcpServers };
  return {
    cwd: of.root,
    mcpServers,
    _meta: {
      systemPrompt: { append: agentInstructions(of) },
      claudeCode: { options: { disallowedTools: of.agent.replaces, allowedTools: [ORCA_TOOLS_RULE] } },
    },
  };
}
