import type { Script } from '../../shared/core/model/scriptFile.js';
import type { SandboxMode } from '../../shared/core/runtime/sandboxMode.js';
import type { CheckNetwork } from '../../shared/core/sandbox/checkNetwork.js';
import type { RunMemory } from '../memory/runMemory.js';
import type { ModelChoice } from '../modelChoice.js';
import type { RunBudgets } from './runWatch.js';

/** What `orca run` (or `orca resume`) hands the coordinator: the task, where, with what model, budgets and options. */
export interface RunSettings {
  task: string;
  repo: string;
  base: string;
  checks: string[];
  /** The integration checks' network (`--check-network`): the proxy's by default. */
  checkNetwork: CheckNetwork;
  /** The model every job carries; unset with the Scripted model, or for a run recorded before the id was. */
  model?: ModelChoice;
  script?: Script;
  approve: boolean;
  budgets: RunBudgets & { maxAgents: number; wallClockMs?: number };
  /** Lines for the person watching; undefined with --json. */
  say?: (line: string) => void;
  tty: boolean;
  /** How the agents' permission requests are answered when no person does: the wait, and answers given in advance. */
  /** `nobody`: no terminal and no --ask-timeout, so a request is refused at once (askOptions.ts). */
  asks: { timeoutMs: number; yesTo: string[]; nobody?: boolean };
  /** The run's memory (docs/memory.md); undefined with --no-memory. */
  memory?: RunMemory;
  /** The `allowed-tools` of the slash command the task came from: every agent of the run is limited to them. */
  toolLimit?: { source: string; rules: string[] };
  /** Claude Code plugin folders (`--plugin-dir`): every agent of the run loads them. */
  pluginDirs?: string[];
  /** `--mcp`: the MCP servers the run gives its built-in roles (docs/mcp.md). */
  mcp?: string[];
  /** `--agent`: agent names by role, stronger than a role file's and orca.json's choice (docs/agents.md). */
  agents?: Record<string, string>;
  /** `--sandbox`: every job carries it to its worker. */
  sandbox: SandboxMode;
  /** The git remote the run is shared over (`--share`): workers on any host get the repository from it. */
  share?: string;
}
