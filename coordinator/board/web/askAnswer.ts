import { z } from 'zod';
import { describeZodError } from '../../../shared/core/boundary/zodIssues.js';
import { answerRequest, firstAnswer, isSameAnswer } from '../../../shared/infra/asks/answerRequest.js';
import { readRunBoard } from '../../../shared/infra/board/readBoard.js';
import type { BoardSource } from '../boardSource.js';

/** What the board's Allow / Deny buttons send. */
export const AnswerBodySchema = z.strictObject({
  allowed: z.boolean(),
  /** Why, for the agent (a deny's reason). */
  reason: z.string().max(2_000).optional(),
  /** Also allow the request's suggested rules for the rest of the run. */
  for_run: z.boolean().default(false),
});

export type AnswerReply = { status: 200 | 400 | 404 | 409; body: Record<string, unknown> };

/**
 * An answer from the web board to a pending permission request, recorded like any other on the
 * run's stream (`via: board`). A request that is not pending (answered, or its agent ended) is a
 * 409 naming why; an answer that another beat meanwhile is a 409 naming the one that counted.
 */
export async function answerFromBoard(
  source: BoardSource,
  runId: string,
  requestId: string,
  raw: unknown,
  who: string,
): Promise<AnswerReply> {
  const parsed = AnswerBodySchema.safeParse(raw);
  if (!parsed.success) return { status: 400, body: { error: describeZodError(parsed.error, 'the answer') } };
  const board = await readRunBoard(source.redis, source.keys, runId);
  if (!board) return { status: 404, body: { error: `run ${runId} is not recorded` } };
  const ask = board.asks.find((candidate) => candidate.id === requestId);
  if (!ask) {
    const answered = board.answered.find((candidate) => candidate.id === requestId);
    const why = answered
      ? `it was already ${answered.answer.allowed ? 'allowed' : 'denied'} by ${answered.answer.by} (${answered.answer.via})`
      : 'it is not waiting for an answer';
    return { status: 409, body: { error: `request ${requestId} of run ${runId} was not answered: ${why}` } };
  }
  const { allowed, reason, for_run } = parsed.data;
  const ours = await answerRequest(source.redis, source.keys, runId, {
    task_id: ask.task_id,
    request_id: ask.id,
    allowed,
    reason: `${allowed ? 'allowed' : 'denied'} on the web board by ${who}${reason ? `: ${reason}` : ''}`,
    by: who,
    via: 'board',
    remember: allowed && for_run ? ask.suggestion : [],
  });
  const counted = await firstAnswer(source.redis, source.keys, runId, ask.id);
  if (!isSameAnswer(counted, ours)) {
    return { status: 409, body: { error: `request ${ask.id} was answered first by ${counted?.by} (${counted?.via})` } };
  }
  return { status: 200, body: { run_id: runId, request_id: ask.id, allowed, remember: ours.remember } };
}
