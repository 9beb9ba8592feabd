import type { AgentLimits } from '../shared/core/loop/limits.js';
import type { Effort } from '../shared/core/model/thinking.js';
import type { PermissionMode } from '../shared/core/tool/permissionMode.js';
import type { OutputKind } from '../shared/infra/queue/agentJob.js';

/**
 * A role is data: what the agent is told, which tools it may call, the permission mode it runs
 * in, its budgets and the schema its Report must satisfy. Nothing about a role is decided in code
 * paths elsewhere.
 */
export interface RoleDefinition {
  name: string;
  description: string;
  /** The role's own instructions, appended to the shared static prompt. */
  prompt: string;
  /** Tool names the agent may call (Report is always added). */
  tools: string[];
  mode: PermissionMode;
  /** A model id for this role; unset uses the run's model. */
  model?: string;
  /** How this role's model thinks (`adaptive`, `enabled:<budget>`, `off`); unset uses the run's setting. */
  thinking?: string;
  /** This role's effort level; unset uses the run's. */
  effort?: Effort;
  limits: Partial<AgentLimits>;
  /** Which Report schema the role must satisfy (roles/outputs.ts). */
  output: OutputKind;
  /** See RoleSpec: `branch` (writes and commits), `scratch` (builds, never commits) or `view` (reads). */
  workspace: 'view' | 'scratch' | 'branch';
  /** Run Bash (and setup, language servers) in the sandbox; `--sandbox required` does for every role. */
  sandbox: boolean;
  /** The MCP servers the role uses: names from the MCP config, or inline definitions (docs/mcp.md). Built-in roles: none. */
  mcpServers?: Array<string | Record<string, unknown>>;
  /** Where the role came from: `builtin` or the path of its `.claude/agents/*.md` file. */
  source: string;
  /** The agent its file names (`agent:`): orca, a preset or one of orca.json's agents (docs/agents.md); unset: orca's choice. */
  agent?: string;
  /** The `permissionMode` its agent file named, by Claude Code's name (hooks read it as `permission_mode`). */
  claudeMode?: 'default' | 'plan' | 'acceptEdits' | 'bypassPermissions' | 'dontAsk';
}
