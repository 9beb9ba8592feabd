import type { RoleDefinition } from '../roles/role.js';
import type { AgentBackend } from '../shared/core/agents/agentBackend.js';
import type { OrcaProjectConfig } from '../shared/core/git/orcaProjectConfig.js';
import type { Effort } from '../shared/core/model/thinking.js';
import type { SandboxMode } from '../shared/core/runtime/sandboxMode.js';
import type { TrustedConfig } from '../shared/infra/queue/trustedConfig.js';
import type { AskWait } from './asks/askOptions.js';

/** `orca agent`'s options, as its command line gives them (cli/agentCli.ts). */
export interface AgentCommandOptions {
  role: string;
  prompt: string;
  repo: string;
  base?: string;
  model?: string;
  thinking?: string;
  effort?: Effort;
  script?: string;
  json: boolean;
  workers: number;
  localWorkers: boolean;
  allowDirty: boolean;
  /** How long the agent waits for an answer to a permission request, and whether anyone can answer. */
  asks: AskWait;
  /** Allow rules that answer matching permission requests before anyone is asked. */
  yesTo: string[];
  /** False with --no-memory. */
  memory: boolean;
  /** Claude Code plugin folders (`--plugin-dir`, repeatable). */
  pluginDirs?: string[];
  /** `--mcp`: the MCP servers a built-in role gets (docs/mcp.md). */
  mcp?: string[];
  /** `--agent`: what runs the agent (a bare name is this role's; docs/agents.md). */
  agent?: string;
  /** `--sandbox` (or ORCA_SANDBOX), and where it came from for the line. */
  sandbox: SandboxMode;
  sandboxSource?: string;
  /** `--share` (or ORCA_SHARE): the git remote workers on other hosts get the repository from. */
  share?: string;
}

/** What `orca agent` read at the base before it starts: the role, the trusted configuration, what runs the agent. */
export interface AgentRead {
  role: RoleDefinition;
  config: TrustedConfig;
  agent: AgentBackend;
  /** orca.json at the base, as read for the agent's choice: the job carries it, so its worker need not read it again. */
  project: OrcaProjectConfig;
}
