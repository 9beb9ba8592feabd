import { z } from 'zod';
import { PermissionAnswerEventSchema, PermissionRequestEventSchema } from '../../core/events/permissionAsk.js';
import { RunStatusSchema, TaskStatusSchema } from '../../core/events/runEvent.js';
import type { Usage } from '../../core/model/usage.js';
import { SandboxKindSchema } from '../../core/runtime/sandboxMode.js';

/**
 * The board's state as Redis holds it: a hash per run and per task, every field a string, written
 * only by the projection of the run's events (projectEvent.ts). These schemas are where those
 * strings are read back into typed values (a boundary: a hash written by another version of orca
 * must fail here with the field named, not show nonsense).
 */

const text = z.string().optional();
const count = z.coerce.number().int().nonnegative().default(0);
const amount = z.coerce.number().nonnegative().default(0);
const instant = z.coerce.number().optional();
const flag = z
  .enum(['0', '1'])
  .transform((value) => value === '1')
  .default(false);
const jsonOf = <T extends z.ZodType>(schema: T) =>
  z
    .string()
    .transform((raw, ctx) => {
      try {
        return JSON.parse(raw) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'is not JSON' });
        return z.NEVER;
      }
    })
    .pipe(schema)
    .optional();
const strings = jsonOf(z.array(z.string())).transform((value) => value ?? []);

/** Token fields, in a hash as in the run's JSON. */
const usageFields = {
  input_tokens: count,
  output_tokens: count,
  cache_read_tokens: count,
  cache_creation_tokens: count,
  thinking_tokens: count,
  cost_usd: amount,
};

function usageOf(fields: Usage): Usage {
  return {
    input_tokens: fields.input_tokens,
    output_tokens: fields.output_tokens,
    cache_read_tokens: fields.cache_read_tokens,
    cache_creation_tokens: fields.cache_creation_tokens,
    thinking_tokens: fields.thinking_tokens,
  };
}

export const TaskStateSchema = z
  .object({
    run_id: z.string(),
    task_id: z.string(),
    role: z.string().default('?'),
    title: text,
    depends_on: strings,
    paths: strings,
    checks: strings,
    status: TaskStatusSchema.default('pending'),
    /** What the coordinator said with the last status (why it is blocked, which attempt failed). */
    status_detail: text,
    /** 0 until the task's first job is queued (a task blocked before it ran never had one). */
    attempt: z.coerce.number().int().nonnegative().default(0),
    job_id: text,
    host: text,
    pid: z.coerce.number().int().optional(),
    /** The worker's agent slot it runs in (0-based). */
    slot: z.coerce.number().int().nonnegative().optional(),
    worktree: text,
    workspace_kind: z.enum(['branch', 'scratch', 'view']).optional(),
    /** What its commands ran in on the worker: `bwrap`, or `none` (unsandboxed). */
    sandbox: SandboxKindSchema.optional(),
    /** The agent that runs it: `orca`, or an ACP agent's name. */
    agent: text,
    branch: text,
    /** The commit the agent started from. */
    start_commit: text,
    commit: text,
    ports: jsonOf(z.array(z.number().int())).transform((value) => value ?? []),
    model: text,
    scripted: flag,
    /** The tool call in flight (`Bash npm test`), cleared when the next model turn starts. */
    current_tool: text,
    last_text: text,
    turns: count,
    tool_calls: count,
    ...usageFields,
    created_at: instant,
    queued_at: instant,
    started_at: instant,
    ended_at: instant,
    updated_at: instant,
    /** When its latest agent session began (a retry of a dead worker's job begins another). */
    session_at: instant,
    /** When its branch was merged into the integration branch. */
    merged_at: instant,
    end_reason: text,
    end_detail: text,
    /** A verification agent's verdict (PASS, FAIL, PARTIAL). */
    verdict: text,
    merge_outcome: z.enum(['merged', 'nothing', 'conflict', 'resolved', 'failed', 'refused', 'rolled_back']).optional(),
    merge_commit: text,
    merge_detail: text,
    transcript: text,
    error: text,
  })
  .transform(({ input_tokens, output_tokens, cache_read_tokens, cache_creation_tokens, thinking_tokens, ...task }) => ({
    ...task,
    usage: usageOf({ input_tokens, output_tokens, cache_read_tokens, cache_creation_tokens, thinking_tokens }),
  }));
export type TaskState = z.output<typeof TaskStateSchema>;

/** A finding checked at the base commit, as the board shows it. */
const CheckedFactSchema = z.object({ fact: z.string(), evidence: z.string(), verified: z.boolean(), reason: z.string().optional() });
const CheckedReadSchema = z.object({ path: z.string(), partial: z.boolean(), verified: z.boolean(), reason: z.string().optional() });
const CheckedProblemSchema = z.object({
  file: z.string(),
  line: z.number().int().optional(),
  what: z.string(),
  verified: z.boolean(),
  reason: z.string().optional(),
});

export const RunStateSchema = z
  .object({
    run_id: z.string(),
    /** `run` for a coordinator run (it began with `run_created`); `agent` for `orca agent`, which only has agent events. */
    kind: z.enum(['run', 'agent']).default('agent'),
    task: text,
    repo: text,
    base: text,
    integration_branch: text,
    model: text,
    scripted: flag,
    checks: strings,
    phase: text,
    phase_detail: text,
    /** `running` from `run_created` until `run_end` says how it ended. */
    status: z.union([z.literal('running'), RunStatusSchema]).optional(),
    verdict: RunStatusSchema.optional(),
    verdict_detail: text,
    head: text,
    detail: text,
    /** The Explore findings, each checked at the base commit. */
    facts: jsonOf(z.array(CheckedFactSchema)).transform((value) => value ?? []),
    /** The files the Explore agents read, each checked at the base commit (hashes kept off the board). */
    files_read: jsonOf(z.array(CheckedReadSchema)).transform((value) => value ?? []),
    /** The problems the last Verification agent reported, each checked against the merged tree. */
    problems: jsonOf(z.array(CheckedProblemSchema)).transform((value) => value ?? []),
    ...usageFields,
    created_at: instant,
    updated_at: instant,
    ended_at: instant,
  })
  .transform(({ input_tokens, output_tokens, cache_read_tokens, cache_creation_tokens, thinking_tokens, ...run }) => ({
    ...run,
    usage: usageOf({ input_tokens, output_tokens, cache_read_tokens, cache_creation_tokens, thinking_tokens }),
  }));
export type RunState = z.output<typeof RunStateSchema>;

/** One piece of evidence, as the projection pushes it onto a task's or the run's list. */
export const EvidenceSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('check'),
    at: z.number(),
    command: z.string(),
    exit_code: z.number().int().nullable(),
    tests_executed: z.number().int().nullable(),
    /** The tree it ran on (a task's commit, the integration head). */
    tree: z.string(),
    /** The check's full output on the coordinator's host. */
    log: z.string(),
  }),
  z.object({ kind: z.literal('gate'), at: z.number(), name: z.string(), ok: z.boolean(), reason: z.string() }),
]);
export type Evidence = z.infer<typeof EvidenceSchema>;

export const RunNoteSchema = z.object({ at: z.number(), message: z.string(), task_id: z.string().optional() });
export type RunNote = z.infer<typeof RunNoteSchema>;

/** A permission request as the board keeps it: the agent's question, on its task. */
export const AskSchema = PermissionRequestEventSchema.omit({ type: true }).extend({ task_id: z.string() });
export type Ask = z.infer<typeof AskSchema>;

/** The first answer to a request. */
export const AnswerSchema = PermissionAnswerEventSchema.omit({ type: true });
export type Answer = z.infer<typeof AnswerSchema>;
