import { z } from 'zod';
import { UsageSchema } from '../model/usage.js';
import { AnswerViaSchema, PermissionRequestEventSchema } from './permissionAsk.js';

/**
 * Everything an agent session does, as one typed stream. The loop yields these; the transcript
 * (JSONL) and the run's Redis stream record them; the board reads only them.
 */

export const END_REASONS = [
  'report',
  'no_tool_use',
  'max_turns',
  'token_budget',
  'cost_budget',
  'wall_clock',
  'aborted',
  'stopped_by_hook',
  /** The model declined to go on (stop reason `refusal`). */
  'refusal',
  'error',
] as const;
export const EndReasonSchema = z.enum(END_REASONS);
export type EndReason = z.infer<typeof EndReasonSchema>;

const at = { at: z.number() };

export const AgentEventSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('session_start'),
    ...at,
    session_id: z.string(),
    role: z.string(),
    model: z.string(),
    scripted: z.boolean(),
    cwd: z.string(),
  }),
  /** The task prompt the session starts with, as the agent is given it (context from hooks included). */
  z.object({ type: z.literal('prompt'), ...at, text: z.string() }),
  /** The memory cards put in the session's dynamic prompt, none included (docs/memory.md). */
  z.object({
    type: z.literal('memory'),
    ...at,
    scope: z.string(),
    cards: z.array(
      z.object({ id: z.string(), type: z.string(), title: z.string(), scope: z.string(), origin: z.string(), score: z.number() }),
    ),
  }),
  z.object({ type: z.literal('turn_start'), ...at, turn: z.number().int() }),
  /** Streamed text; shown live, not persisted (assistant_text carries the whole turn). */
  z.object({ type: z.literal('text_delta'), ...at, text: z.string() }),
  z.object({ type: z.literal('assistant_text'), ...at, turn: z.number().int(), text: z.string() }),
  /**
   * One thinking block of a turn, for the transcript only: never sent to the run's stream, never
   * shown to another agent, never evidence. `redacted`: the API encrypted it (no text).
   */
  z.object({ type: z.literal('thinking'), ...at, turn: z.number().int(), text: z.string(), redacted: z.boolean() }),
  z.object({
    type: z.literal('tool_call'),
    ...at,
    turn: z.number().int(),
    id: z.string(),
    name: z.string(),
    input: z.unknown(),
  }),
  z.object({
    type: z.literal('tool_result'),
    ...at,
    id: z.string(),
    name: z.string(),
    is_error: z.boolean(),
    chars: z.number().int(),
    preview: z.string(),
    spilled_to: z.string().optional(),
    duration_ms: z.number(),
  }),
  z.object({
    type: z.literal('permission'),
    ...at,
    tool: z.string(),
    decision: z.enum(['allow', 'deny', 'ask']),
    /** The rule, mode, hook or prompter that decided; for an answered request, who answered. */
    by: z.string(),
    reason: z.string(),
    /** The request a person was asked (permission_request), when this decision is its answer. */
    request_id: z.string().optional(),
    /** How that answer came. */
    via: AnswerViaSchema.optional(),
  }),
  /** A person is asked about a call; the agent waits for the first answer (./permissionAsk.ts). */
  PermissionRequestEventSchema,
  z.object({
    type: z.literal('hook'),
    ...at,
    event: z.string(),
    command: z.string(),
    outcome: z.enum(['ok', 'block', 'error', 'timeout']),
    exit_code: z.number().int().nullable(),
    detail: z.string().optional(),
  }),
  /** One of orca.json's `setup` commands ran in the task's new worktree, before its agent (docs/worktrees.md). */
  z.object({
    type: z.literal('setup'),
    ...at,
    command: z.string(),
    outcome: z.enum(['ok', 'failed', 'timeout', 'aborted']),
    exit_code: z.number().int().nullable(),
    duration_ms: z.number().int().nonnegative(),
    /** The task's setup log (every setup command's output) on the worker's host. */
    log: z.string(),
    /** The commit the worktree was checked out at. */
    tree: z.string(),
    /** The end of the log, when the command failed. */
    tail: z.string().optional(),
  }),
  z.object({
    type: z.literal('usage'),
    ...at,
    turn: z.number().int(),
    usage: UsageSchema,
    cost_usd: z.number(),
    total: UsageSchema,
    total_cost_usd: z.number(),
  }),
  z.object({
    type: z.literal('report_rejected'),
    ...at,
    attempt: z.number().int(),
    error: z.string(),
  }),
  z.object({
    type: z.literal('compaction'),
    ...at,
    level: z.enum(['snip', 'microcompact', 'collapse', 'autocompact', 'autocompact_failed', 'autocompact_disabled']),
    tokens_before: z.number().int(),
    tokens_after: z.number().int(),
    detail: z.string().optional(),
  }),
  z.object({ type: z.literal('notice'), ...at, level: z.enum(['info', 'warn', 'error']), message: z.string() }),
  z.object({
    type: z.literal('end'),
    ...at,
    reason: EndReasonSchema,
    detail: z.string(),
    turns: z.number().int(),
    usage: UsageSchema,
    cost_usd: z.number(),
    report: z.unknown().optional(),
  }),
]);
export type AgentEvent = z.infer<typeof AgentEventSchema>;
export type AgentEventType = AgentEvent['type'];
/** An event as built by the code that emits it; `at` is stamped on emit. */
export type AgentEventInput = AgentEvent extends infer E ? (E extends { at: number } ? Omit<E, 'at'> : never) : never;

export function stamp(event: AgentEventInput): AgentEvent {
  return { ...event, at: Date.now() } as AgentEvent;
}
