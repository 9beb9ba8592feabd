import { withoutOrcaState } from '../../core/runtime/agentEnv.js';
import { type LoadedSettings, loadSettings } from '../../policy/settings/loadSettings.js';
import { type ApprovalSource, McpConfigError, type McpServerEntry, projectServerApproval } from './mcpConfig.js';
import type { McpLimits } from './mcpConnection.js';
import { configuredServers, userMcpConfigFile } from './mcpFiles.js';
import type { McpPool } from './mcpPool.js';
import { type RoleMcpServers, selectServers } from './mcpSelection.js';
import { McpServers } from './mcpServers.js';

export interface AgentMcpOptions {
  /**
   * The servers the agent's role names (docs/mcp.md, "Per role"); none: no server is read or
   * started. `approved`: every project server the user approved (Claude Code's default for an
   * agent whose tools are not limited).
   */
  wanted: RoleMcpServers | 'approved';
  /** Where the role was defined, for messages about its inline servers. */
  roleSource: string;
  /** The project: its `.mcp.json` and settings (the approvals) are read here, and stdio servers run here. */
  projectRoot: string;
  /**
   * The run's trusted configuration, when the caller has it: the text of `.mcp.json` at the base
   * commit (undefined: it has none) and the settings whose approvals count. Without it, both are
   * read from projectRoot (tests of MCP alone).
   */
  trusted?: { mcpJson: string | undefined; settings: LoadedSettings };
  userClaudeDir?: string;
  homeDir?: string;
  /** The servers' environment (the user's) and what `${VAR}` expands from. */
  env?: NodeJS.ProcessEnv;
  pool?: McpPool;
  limits?: Partial<McpLimits>;
  /** Awaited before the first server starts, when one does (the job's watch takes its baseline of the user's checkout first). */
  beforeServersStart?: () => Promise<unknown>;
}

/**
 * The MCP servers one agent starts with: its role's, from the configured servers (the project's
 * `.mcp.json`, the user's `~/.claude.json`) or its own inline ones, project servers only once
 * approved in settings. A config that cannot be read leaves every server unavailable, saying why.
 */
export async function startAgentMcp(options: AgentMcpOptions): Promise<McpServers> {
  if (options.wanted !== 'approved' && options.wanted.length === 0) return McpServers.none();
  const env = options.env ?? process.env;
  let selection: ReturnType<typeof selectServers>;
  try {
    const settings =
      options.trusted?.settings ?? loadSettings({ projectRoot: options.projectRoot, userClaudeDir: options.userClaudeDir, env });
    const available = configuredServers({
      projectRoot: options.projectRoot,
      projectText: options.trusted ? (options.trusted.mcpJson ?? null) : undefined,
      userConfigFile: userMcpConfigFile({ userClaudeDir: options.userClaudeDir, homeDir: options.homeDir, env }),
    });
    const wanted = options.wanted === 'approved' ? approvedProjectServers(available, settings.sources) : options.wanted;
    if (wanted.length === 0) return McpServers.none();
    selection = selectServers({ available, wanted, roleSource: options.roleSource, approval: settings.sources });
  } catch (error) {
    if (!(error instanceof McpConfigError)) throw error;
    const names =
      options.wanted === 'approved'
        ? ['.mcp.json']
        : options.wanted.flatMap((item) => (typeof item === 'string' ? [item] : Object.keys(item)));
    selection = { start: [], refused: names.map((name) => ({ name, reason: error.message })) };
  }
  if (selection.start.length > 0) await options.beforeServersStart?.();
  // Servers get the user's environment, as in Claude Code, but nothing that names orca's own state.
  return McpServers.start({ selection, cwd: options.projectRoot, env: withoutOrcaState(env), pool: options.pool, limits: options.limits });
}

/** The project's servers (`.mcp.json`) the user approved in settings: what an agent gets when it names none. */
function approvedProjectServers(available: readonly McpServerEntry[], approval: readonly ApprovalSource[]): string[] {
  return available
    .filter((entry) => entry.scope !== 'user' && projectServerApproval(entry.name, approval).approved)
    .map((entry) => entry.name);
}
