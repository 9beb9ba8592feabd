import { z } from 'zod';
import { LineRangeSchema } from '../files/lineRanges.js';
import { EffortSchema, ThinkingOptionSchema } from '../model/thinking.js';
import { UsageSchema } from '../model/usage.js';
import { SandboxKindSchema, SandboxModeSchema } from '../runtime/sandboxMode.js';
import { CHECK_NETWORKS } from '../sandbox/checkNetwork.js';
import { PermissionAnswerEventSchema } from './permissionAsk.js';

/**
 * What a run does, as the coordinator records it on the run's Redis stream (source `run`),
 * beside its agents' own events (source `agent`). The board's state is written only from these.
 */

export const TASK_STATUSES = [
  'pending',
  'queued',
  'running',
  'completed',
  'merged',
  'verified',
  'failed',
  'blocked',
  'aborted',
  'cancelled',
] as const;
export const TaskStatusSchema = z.enum(TASK_STATUSES);
export type TaskStatus = z.infer<typeof TaskStatusSchema>;

export const RUN_PHASES = ['exploring', 'planning', 'awaiting_approval', 'dispatching', 'merging', 'verifying', 'done'] as const;
export const RunPhaseSchema = z.enum(RUN_PHASES);
export type RunPhase = z.infer<typeof RunPhaseSchema>;

export const RunStatusSchema = z.enum(['PASS', 'FAIL', 'PARTIAL', 'ABORTED']);
export type RunStatus = z.infer<typeof RunStatusSchema>;

const at = { at: z.number() };

export const RunEventSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('run_created'),
    ...at,
    task: z.string(),
    repo: z.string(),
    base: z.string(),
    integration_branch: z.string(),
    model: z.string(),
    scripted: z.boolean(),
    checks: z.array(z.string()),
    /** What `orca resume` needs to carry on exactly as the run began. */
    settings: z
      .object({
        script: z.unknown().optional(),
        model_id: z.string().optional(),
        thinking: ThinkingOptionSchema.optional(),
        effort: EffortSchema.optional(),
        approve: z.boolean(),
        max_agents: z.number().int().positive(),
        max_tokens: z.number().optional(),
        max_cost_usd: z.number().optional(),
        deadline: z.number().optional(),
        /** How long an agent waits for an answer to a permission request (ms; 0 denies at once). */
        ask_timeout_ms: z.number().int().nonnegative().optional(),
        /** Allow rules that answer matching permission requests before anyone is asked (`--yes-to`). */
        yes_to: z.array(z.string()).optional(),
        /** Claude Code plugin folders given with `--plugin-dir` (absolute). */
        plugin_dirs: z.array(z.string()).optional(),
        /** False when the run was started with --no-memory (docs/memory.md). */
        memory: z.boolean().optional(),
        /** `--mcp`: the MCP servers the run gives its built-in roles (docs/mcp.md). */
        mcp: z.array(z.string()).optional(),
        /** `--agent`: agent names by role (docs/agents.md). */
        agents: z.record(z.string(), z.string()).optional(),
        /** `--check-network`: whether the integration checks reach the host network. */
        check_network: z.enum(CHECK_NETWORKS).optional(),
        /** Why each of `checks` was chosen, in their order: `--check`, or `detected: <how>` (the run JSON's `checks`). */
        check_sources: z.array(z.string()).optional(),
        /** `--sandbox` (auto when absent: a run recorded before the flag). */
        sandbox: SandboxModeSchema.optional(),
        /** The git remote the run is shared over (`--share`, `ORCA_SHARE`): its jobs name it, not the repository's path. */
        share: z.string().optional(),
        /** The slash command the task came from, and its `allowed-tools` (the run's tool limit). */
        command: z
          .object({ invoked: z.string(), file: z.string(), allowed_tools: z.array(z.string()).optional(), model: z.string().optional() })
          .optional(),
      })
      .optional(),
  }),
  z.object({ type: z.literal('run_phase'), ...at, phase: RunPhaseSchema, detail: z.string().optional() }),
  /**
   * What the exploring agents established, distilled: facts with path:line, and the files read,
   * each checked by the host against the base commit (`verified`, else `reason`).
   */
  z.object({
    type: z.literal('findings'),
    ...at,
    facts: z.array(
      z.object({ fact: z.string(), evidence: z.string(), verified: z.boolean().default(false), reason: z.string().optional() }),
    ),
    files: z.array(
      z.object({
        path: z.string(),
        hash: z.string(),
        partial: z.boolean().default(false),
        seen: z.array(LineRangeSchema).optional(),
        verified: z.boolean().default(false),
        reason: z.string().optional(),
      }),
    ),
    questions: z.array(z.string()),
  }),
  /** The validated plan the run carries out (after the coordinator's own DAG checks). */
  z.object({
    type: z.literal('plan'),
    ...at,
    subtasks: z.array(
      z.object({
        id: z.string(),
        title: z.string(),
        instructions: z.string(),
        paths: z.array(z.string()),
        depends_on: z.array(z.string()),
        /** Absent: the run's checks are required of its branch; `[]`: it cannot be checked alone (judged right after its merge). */
        checks: z.array(z.string()).optional(),
      }),
    ),
    risks: z.array(z.string()),
  }),
  /** A plan shown for approval was answered (`orca approve` / `orca reject`, or y/n). */
  z.object({ type: z.literal('approval'), ...at, approved: z.boolean(), by: z.string() }),
  z.object({
    type: z.literal('task_created'),
    ...at,
    task_id: z.string(),
    role: z.string(),
    title: z.string(),
    depends_on: z.array(z.string()),
    paths: z.array(z.string()),
    checks: z.array(z.string()),
  }),
  z.object({
    type: z.literal('task_state'),
    ...at,
    task_id: z.string(),
    status: TaskStatusSchema,
    attempt: z.number().int(),
    job_id: z.string().optional(),
    detail: z.string().optional(),
  }),
  z.object({
    type: z.literal('task_result'),
    ...at,
    task_id: z.string(),
    job_id: z.string().optional(),
    status: z.enum(['completed', 'failed', 'aborted']),
    end_reason: z.string(),
    detail: z.string(),
    branch: z.string().optional(),
    commit: z.string().optional(),
    worktree: z.string().optional(),
    transcript: z.string(),
    host: z.string(),
    pid: z.number().int(),
    turns: z.number().int(),
    usage: UsageSchema,
    cost_usd: z.number(),
    /** What the agent's commands ran in on its worker (absent when it ended before its agent started). */
    sandbox: SandboxKindSchema.optional(),
    /** The agent that ran it: `orca`, or an ACP agent's name (docs/agents.md); absent in runs recorded before agents could be chosen. */
    agent: z.string().optional(),
    /** False when the agent did not say what it spent: its usage and cost are then not measured. */
    usage_reported: z.boolean().optional(),
  }),
  z.object({
    type: z.literal('merge'),
    ...at,
    task_id: z.string(),
    /**
     * `refused`: the coordinator's check refused the branch (a guarded path, or one the task does not own): not merged.
     * `rolled_back`: it merged, then failed verification, and the integration branch was moved back off it
     * (`commit`: the merge taken off; the task's own branch keeps its work).
     */
    outcome: z.enum(['merged', 'nothing', 'conflict', 'resolved', 'failed', 'refused', 'rolled_back']),
    commit: z.string().optional(),
    files: z.array(z.string()).default([]),
    detail: z.string().optional(),
  }),
  /** What became of a card an agent asked to Remember (docs/memory.md): filed, or queued for `orca memory review`. */
  z.object({
    type: z.literal('memory_filed'),
    ...at,
    task_id: z.string(),
    outcome: z.enum(['added', 'updated', 'confirmed', 'queued', 'refused', 'failed']),
    card_id: z.string().optional(),
    title: z.string(),
    detail: z.string(),
  }),
  /** Something the coordinator decided about the plan, and why (a serialised overlap, a dropped edge). */
  z.object({ type: z.literal('dag_note'), ...at, message: z.string(), task_id: z.string().optional() }),
  z.object({
    type: z.literal('check'),
    ...at,
    command: z.string(),
    exit_code: z.number().int().nullable(),
    tests_executed: z.number().int().nullable(),
    tree: z.string(),
    log: z.string(),
    task_id: z.string().optional(),
    /** An integration check's sandbox: `bwrap`, `sandbox-exec`, or `none` when it ran unsandboxed (infra/verify/checks/checkSandbox.ts). */
    sandbox: SandboxKindSchema.optional(),
    /** What an integration check changed that it may not (a ref), each put back: the check did not pass. */
    tampered: z.array(z.string()).optional(),
  }),
  z.object({ type: z.literal('gate'), ...at, name: z.string(), ok: z.boolean(), reason: z.string(), task_id: z.string().optional() }),
  /** An answer to an agent's permission request, from whoever answered first (./permissionAsk.ts). */
  PermissionAnswerEventSchema,
  /** The problems a Verification agent reported in a round, each checked against the merged tree. */
  z.object({
    type: z.literal('problems'),
    ...at,
    round: z.number().int().positive(),
    problems: z.array(
      z.object({
        file: z.string(),
        line: z.number().int().optional(),
        what: z.string(),
        verified: z.boolean(),
        reason: z.string().optional(),
      }),
    ),
  }),
  z.object({ type: z.literal('verdict'), ...at, status: RunStatusSchema, detail: z.string() }),
  z.object({
    type: z.literal('run_end'),
    ...at,
    status: RunStatusSchema,
    head: z.string().optional(),
    usage: UsageSchema,
    cost_usd: z.number(),
    detail: z.string(),
  }),
]);
export type RunEvent = z.infer<typeof RunEventSchema>;
export type RunEventInput = RunEvent extends infer E ? (E extends { at: number } ? Omit<E, 'at'> : never) : never;
