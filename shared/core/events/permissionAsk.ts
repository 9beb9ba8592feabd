import { z } from 'zod';

/**
 * A question to the user about one tool call, and its answer, as they travel over the run's stream
 * between the worker whose agent waits and whoever answers: a terminal, the web board, `orca
 * allow` / `orca deny` from any host, or the worker itself (a timeout, an abort). The first answer
 * on the stream wins; the board keeps the questions nobody has answered yet.
 */

/** How an answer came: a person at a terminal, on the web board, with a command; or the worker on its own. */
export const ANSWER_VIAS = ['terminal', 'board', 'command', 'timeout', 'abort'] as const;
export const AnswerViaSchema = z.enum(ANSWER_VIAS);
export type AnswerVia = z.infer<typeof AnswerViaSchema>;

/** The agent's question (an agent event, on its task): its worker waits for the first answer. */
export const PermissionRequestEventSchema = z.object({
  type: z.literal('permission_request'),
  at: z.number(),
  /** The request id: what an answer names (`orca allow RUN ID`). */
  id: z.string().min(1),
  role: z.string(),
  tool: z.string(),
  /** The call's input, as the tool parsed it (secrets redacted on the stream). */
  input: z.unknown(),
  /** The command or path the call acts on. */
  summary: z.string(),
  /** Why it needs an answer: the ask rule, the mode it needs, the guarded path, a hook. */
  reason: z.string(),
  /** The rule, mode, check or hook that asked: `ask:Bash(npm publish:*) in .claude/settings.json`. */
  by: z.string(),
  cwd: z.string(),
  /** Allow rules that would answer calls like this one for the rest of the run (the `a` answer). */
  suggestion: z.array(z.string()).default([]),
  /** When the worker stops waiting and denies it (ms since the epoch). */
  expires_at: z.number(),
});
export type PermissionRequestEvent = z.infer<typeof PermissionRequestEventSchema>;

/** An answer to a request (a run event, on the request's task). Only the first one for a request counts. */
export const PermissionAnswerEventSchema = z.object({
  type: z.literal('permission_answer'),
  at: z.number(),
  task_id: z.string(),
  request_id: z.string().min(1),
  allowed: z.boolean(),
  /** Why, as the model reads it on a refusal. */
  reason: z.string(),
  /** Who answered: `alice@build-3`, `web board (127.0.0.1)`, `orca` for the worker's own answers. */
  by: z.string(),
  via: AnswerViaSchema,
  /** Allow rules that answer the run's later requests like it (an allow for the rest of the run). */
  remember: z.array(z.string()).default([]),
});
export type PermissionAnswerEvent = z.infer<typeof PermissionAnswerEventSchema>;
