import { z } from 'zod';
import { AgentBackendSchema } from '../../core/agents/agentBackend.js';
import { LineRangeSchema } from '../../core/files/lineRanges.js';
import { InheritedFileStateSchema } from '../../core/files/readFileState.js';
import { OrcaProjectConfigSchema } from '../../core/git/orcaProjectConfig.js';
import { isSlug } from '../../core/git/slug.js';
import { AgentLimitsSchema } from '../../core/loop/limits.js';
import { EffortSchema, ThinkingOptionSchema } from '../../core/model/thinking.js';
import { UsageSchema } from '../../core/model/usage.js';
import { SandboxKindSchema, SandboxModeSchema } from '../../core/runtime/sandboxMode.js';
import { PermissionModeSchema } from '../../core/tool/permissionMode.js';
import { AssertionFlagSchema, CheckRecordSchema } from '../verify/evidence/evidence.js';
import { GateResultSchema } from '../verify/gates/gateNames.js';
import { JobMemorySchema, RememberedCardSchema } from './memoryPayload.js';
import { TrustedConfigSchema } from './trustedConfig.js';

/**
 * The payload of an agent job and the result a worker returns: the contract between the
 * coordinator and worker processes, possibly on other hosts. Checked when a job is added and
 * again when a worker takes it.
 */

const Slug = z.string().refine(isSlug, 'must be 1-64 characters from A-Z a-z 0-9 . _ - without ".."');
const Sha = z.string().regex(/^[0-9a-f]{40}$/, 'must be a full 40-character commit sha');

/** `--ask-timeout`'s default: ten minutes. */
export const DEFAULT_ASK_TIMEOUT_MS = 600_000;

export const OUTPUT_KINDS = ['coordinator', 'explore', 'plan', 'worker', 'verification'] as const;
export type OutputKind = (typeof OUTPUT_KINDS)[number];

/** A role as data, serialisable: its output schema is named, not shipped. */
export const RoleSpecSchema = z.object({
  name: z.string().min(1),
  prompt: z.string().min(1),
  tools: z.array(z.string().min(1)),
  mode: PermissionModeSchema,
  model: z.string().min(1).optional(),
  /** The role's own thinking (`adaptive`, `enabled:<budget>`, `off`) and effort: they win over the job's. */
  thinking: ThinkingOptionSchema.optional(),
  effort: EffortSchema.optional(),
  limits: AgentLimitsSchema.partial(),
  output: z.enum(OUTPUT_KINDS),
  /**
   * `branch`: a worktree and branch of its own, committed at the end (writing roles). `scratch`: a
   * disposable detached worktree, never committed (verification: it builds and probes). `view`: a
   * shared read-only checkout of the base commit (explore, plan).
   */
  workspace: z.enum(['view', 'scratch', 'branch']),
  sandbox: z.boolean(),
  /**
   * The MCP servers the role uses (docs/mcp.md, "Per role"): names of configured servers, or
   * inline definitions (`{ "<name>": { "command": … } }`). A built-in role has none of its own.
   */
  mcpServers: z.array(z.union([z.string().min(1), z.record(z.string(), z.unknown())])).default([]),
  source: z.string(),
  /** The agent file's `permissionMode`, by Claude Code's name: what hooks read as `permission_mode`. */
  claudeMode: z.enum(['default', 'plan', 'acceptEdits', 'bypassPermissions', 'dontAsk']).optional(),
});
export type RoleSpec = z.infer<typeof RoleSpecSchema>;

export const RepoRefSchema = z
  .object({
    /** A repository on this host (the local case). */
    path: z.string().min(1).optional(),
    /** A git remote any worker host can reach; the worker clones it and pushes its branch back. */
    remote: z.string().min(1).optional(),
  })
  .refine((repo) => Boolean(repo.path) !== Boolean(repo.remote), 'give exactly one of repo.path and repo.remote');

export const AgentJobSchema = z.object({
  run_id: Slug,
  task_id: Slug,
  /** The plan subtask id, when the job carries one (Scripted model scripts match on it). */
  subtask: z.string().optional(),
  role: RoleSpecSchema,
  prompt: z.string().min(1),
  repo: RepoRefSchema,
  /** The commit the agent starts from, named by the coordinator: never whatever HEAD is. */
  base: Sha,
  /** The branch a writing role works and commits on (`orca/<run>/<task>`). */
  branch: z.string().min(1).optional(),
  ports: z.number().int().min(0).max(16).default(2),
  /** The parent's file state the task needs, rebased onto the worktree by hash. */
  file_state: z.array(InheritedFileStateSchema).default([]),
  model: z.object({
    /** The full model id (aliases are resolved before a job is queued); unset: the worker's ORCA_MODEL or orca's default. */
    id: z.string().min(1).optional(),
    /** `--thinking` and `--effort` of the run; unset: the model family's default. */
    thinking: ThinkingOptionSchema.optional(),
    effort: EffortSchema.optional(),
    /** A Scripted model file's content (not a path: workers may be on other hosts). */
    script: z.unknown().optional(),
  }),
  /** Extra environment for the agent's shell. */
  env: z.record(z.string(), z.string()).default({}),
  /**
   * The run's `--sandbox` mode: without a working sandbox the worker refuses a sandboxed role's job unless it
   * says `off`, which runs its commands unsandboxed; `required` puts hooks in the sandbox too.
   * The worker's own `required` wins.
   */
  sandbox: SandboxModeSchema.default('auto'),
  /** Which hook event ends the agent: `Stop` on its own (`orca agent`), `SubagentStop` within a run. */
  stop_event: z.enum(['Stop', 'SubagentStop']).default('SubagentStop'),
  /** Claude Code plugin folders given with `--plugin-dir` (absolute, on the worker's host): their hooks and skills apply. */
  plugin_dirs: z.array(z.string().min(1)).default([]),
  /** The checks the task names (a plan subtask's `checks`). */
  checks: z.array(z.string()).default([]),
  /**
   * The path globs the task owns (a plan subtask's `paths`; a conflict or fix worker gets those of
   * what it redoes): the agent may change nothing else, and nothing else is committed. Unset: every
   * path but the guarded ones (docs/owned-paths.md).
   */
  owned_paths: z.array(z.string().min(1)).optional(),
  /** How the agent's permission requests are answered when nothing else answers them. */
  asks: z
    .object({
      /** How long the agent waits for a person's answer before the request is denied (0: denied at once). */
      timeout_ms: z.number().int().nonnegative().default(DEFAULT_ASK_TIMEOUT_MS),
      /** Allow rules that answer matching requests before anyone is asked (`--yes-to`). */
      yes_to: z.array(z.string()).default([]),
      /** Nobody can answer: the run has no terminal to ask at and no --ask-timeout (a request is refused at once, saying how to allow it). */
      nobody: z.boolean().optional(),
    })
    .default({ timeout_ms: DEFAULT_ASK_TIMEOUT_MS, yes_to: [] }),
  /** The run's memory scope and clock, and the cards chosen for this job's prompt (docs/memory.md). */
  memory: JobMemorySchema.optional(),
  /**
   * The `allowed-tools` of the slash command the run was started with: the agent gets only the
   * tools named there, and a tool named with specifiers (`Bash(git diff:*)`) only for the calls
   * they cover (docs/claude-code-files.md, "Slash commands").
   */
  tool_limit: z.object({ source: z.string().min(1), rules: z.array(z.string().min(1)) }).optional(),
  /**
   * The repository's orca.json as the run's base commit has it (docs/worktrees.md), read once by
   * the coordinator; unset: the worker reads it at the job's base.
   */
  project: OrcaProjectConfigSchema.optional(),
  /**
   * `--mcp`: the MCP servers the run gives its built-in roles (a custom role names its own in its
   * file); `[]` with `--mcp none`. Unset: the project servers the user approved, as Claude Code
   * gives them to agents whose tools are not limited (none under a slash command's allowed-tools).
   */
  mcp: z.array(z.string().min(1)).optional(),
  /**
   * The run's trusted configuration (trustedConfig.ts): the agent's settings, hooks, rules, skills
   * and instructions come from it, never from its workspace. The coordinator always sends it; a
   * job queued without it gets the same files read by the worker from the repository's git
   * objects at `base` and from the worker's own user folders.
   */
  config: TrustedConfigSchema.optional(),
  /** What runs the agent: orca's own loop (unset) or an ACP agent (docs/agents.md), chosen by the coordinator. */
  agent: AgentBackendSchema.optional(),
});
export type AgentJob = z.infer<typeof AgentJobSchema>;
export type AgentJobInput = z.input<typeof AgentJobSchema>;

export const AgentJobResultSchema = z.object({
  run_id: z.string(),
  task_id: z.string(),
  role: z.string(),
  status: z.enum(['completed', 'failed', 'aborted']),
  end_reason: z.string(),
  detail: z.string(),
  report: z.unknown().optional(),
  base: z.string(),
  branch: z.string().optional(),
  commit: z.string().optional(),
  worktree: z.string().optional(),
  usage: UsageSchema,
  cost_usd: z.number(),
  turns: z.number().int(),
  transcript: z.string(),
  host: z.string(),
  pid: z.number().int(),
  /** Every Bash command the agent ran, with its exit code: what its claims are checked against. */
  commands: z.array(CheckRecordSchema),
  /** Files the agent read, with the hash it saw and, for a partial view, the lines (an Explore agent's `files`, made checkable). */
  files_read: z.array(
    z.object({ path: z.string(), hash: z.string(), partial: z.boolean().default(false), seen: z.array(LineRangeSchema).optional() }),
  ),
  /** Files it changed, relative to the repository. */
  files_changed: z.array(z.string()),
  scripted: z.boolean(),
  /** The agent that ran the task: `orca`, or the ACP agent's name (docs/agents.md). */
  agent: z.string().default('orca'),
  /** Whether the agent said what it spent: an ACP agent may not (usage and cost are then zero, and not counted). */
  usage_reported: z.boolean().default(true),
  /** What the agent's Bash ran in on the worker (absent when the job ended before its agent started). */
  sandbox: SandboxKindSchema.optional(),
  /** Cards the agent's Remember calls admitted, for the coordinator to file in its memory store. */
  remembered: z.array(RememberedCardSchema).default([]),
  /**
   * When each step of the job's end was done on its worker, ms since the epoch: its agent's session
   * returned, its Report judged, its work committed, its result handed to the queue. What the
   * benchmarks split the time from the last model call to the result recorded by (bench/jobEndPhases.ts).
   */
  end_steps: z.object({ session: z.number(), judged: z.number(), committed: z.number(), published: z.number() }).partial().optional(),
  /** The gates on the agent's Report (workers and verification): what its claims are worth; for a failed agent, on its last refused Report. */
  gates: z
    .object({
      ok: z.boolean(),
      gates: z.array(GateResultSchema),
      checks: z.array(
        z.object({
          command: z.string(),
          exit_code: z.number().int().nullable(),
          status: z.string(),
          reason: z.string(),
          tests_executed: z.number().int().nullable(),
          log: z.string().optional(),
        }),
      ),
      flags: z.array(AssertionFlagSchema),
    })
    .optional(),
});
export type AgentJobResult = z.infer<typeof AgentJobResultSchema>;
