import type { z } from 'zod';
import type { CompactionConfigInput } from '../context/compaction/compactionConfig.js';
import type { GitSnapshot } from '../context/prompt/gitSnapshot.js';
import type { ReadFileState } from '../core/files/readFileState.js';
import type { AgentLimits } from '../core/loop/limits.js';
import type { StopCheck } from '../core/loop/session.js';
import type { Model } from '../core/model/model.js';
import type { SandboxMode } from '../core/runtime/sandboxMode.js';
import type { PermissionMode } from '../core/tool/permissionMode.js';
import type { ToolPipelineSlots } from '../core/tool/pipeline.js';
import type { AnyTool, SessionServices } from '../core/tool/tool.js';
import type { InjectedCard } from '../infra/queue/memoryPayload.js';
import type { TrustedConfig } from '../infra/queue/trustedConfig.js';
import type { ClaudeCodePermissionMode } from '../policy/hooks/hookInput.js';
import type { Prompter } from '../policy/permissions/prompter.js';
import type { LspServiceOptions } from '../tools/lsp/lspService.js';
import type { McpServers } from '../tools/mcp/mcpServers.js';

/** What a Harness is built from: the role, its tools and model, the workspace, and what the caller adds around the session. */
export interface HarnessOptions {
  role: {
    name: string;
    prompt: string;
    mode: PermissionMode;
    limits: Partial<AgentLimits>;
    sandbox: boolean;
    /** The mode by Claude Code's name, when the role was given one (an agent file's `permissionMode`). */
    claudeMode?: ClaudeCodePermissionMode;
  };
  tools: AnyTool[];
  outputSchema: z.ZodType;
  model: Model;
  /** The agent's workspace root; also the project whose `.claude/` files apply. */
  workspaceRoot: string;
  /** May the agent's shell write the workspace (false for a read-only view)? */
  workspaceWritable: boolean;
  /** Folders the sandboxed shell must be able to read (the repository's git folder, linked dependencies). */
  sandboxReadable?: string[];
  /** The job's `--sandbox` mode (auto by default): `required` throws NoSandboxError without a working bwrap. */
  sandboxMode?: SandboxMode;
  sessionDir: string;
  /** Environment for the agent's commands and hooks: PORT, ORCA_PORTS, ORCA_RUN_ID, ORCA_TASK_ID, … */
  shellEnv: Record<string, string>;
  fileState?: ReadFileState;
  signal?: AbortSignal;
  /** Who answers a permission question; headless workers refuse (the default). */
  prompter?: Prompter;
  /** `Stop` for an agent on its own (`orca agent`), `SubagentStop` for one of a run's agents. */
  stopEvent: 'Stop' | 'SubagentStop';
  /** The checks named for the task: compaction lists them as not run until they are. */
  requiredChecks?: string[];
  compaction?: CompactionConfigInput;
  /** The user's `~/.claude` (settings, CLAUDE.md, skills), overridable for tests. */
  userClaudeDir?: string;
  homeDir?: string;
  sessionId?: string;
  agentId?: string;
  /** Context lines for each transcript entry (run, task, role). */
  transcriptContext?: Record<string, string>;
  /** Services the tools reach (the task list, the check recorder); the harness adds the hooks. */
  services?: SessionServices;
  /** Wraps the pipeline's slots (the check recorder sees every Bash check this way). */
  wrapSlots?: (slots: ToolPipelineSlots) => ToolPipelineSlots;
  /** Stop checks run after the Stop hooks (the report gate, the verification nudge), before the Report reminder. */
  stopChecks?: StopCheck[];
  /** The workspace's git state at the start, when the caller knows it (it just checked it out). */
  gitAtStart?: GitSnapshot;
  /**
   * The host's watch's `git status` of the workspace after the last call that may write, when it
   * still tells the tree as it is (worktreeWatch.ts `lastStatus`): the turn reminder's status.
   */
  lastWorktreeLook?: () => string | undefined;
  /**
   * Memory (docs/memory.md): the run's scope and day, the cards chosen for this session (they end
   * the dynamic system block, and the transcript records which), and where a Remember call's
   * cards are credited (`run <run> task <task>`).
   */
  memory?: { scope: string; today: string; source: string; cards: InjectedCard[] };
  /** The `allowed-tools` of the run's slash command: the tools and calls the agent is limited to (toolLimit.ts). */
  toolLimit?: { source: string; rules: string[] };
  /** The effort the model works at (`--effort`, the role's), for hooks' `effort.level`; default: the API's, `high`. */
  effort?: string;
  /** Claude Code plugin folders (`--plugin-dir`); the ones the settings enable are added. */
  pluginDirs?: string[];
  /** The language servers (which, their deadlines; on unless ORCA_LSP=off), overridable for tests. */
  lsp?: LspServiceOptions;
  /**
   * The agent's MCP servers, started already (startAgentMcp): their tools join the role's, their
   * instructions the dynamic prompt; the harness gives them back when the agent ends (`close`).
   */
  mcp?: McpServers;
  /** `ORCA_TOOL_SEARCH`, overridable for tests (default: the environment's). */
  toolSearch?: string;
  /**
   * The run's trusted configuration (settings, hooks, rules, skills, instructions: read at the
   * run's base commit and from the user's folders), and a folder of the session's own to write its
   * files out in. Jobs always have one; unset (tests of the harness alone), the workspace's
   * `.claude/` and the user's folders are read as they are.
   */
  config?: { files: TrustedConfig; folder: string };
}
