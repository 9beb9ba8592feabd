import type { Redis } from 'ioredis';
import { type PermissionAnswerEvent, PermissionAnswerEventSchema } from '../../core/events/permissionAsk.js';
import { type Answer, AnswerSchema } from '../board/boardSchemas.js';
import { appendRunEvent } from '../board/runEvents.js';
import type { Keys } from '../redis/keys.js';

export type AnswerInput = Omit<PermissionAnswerEvent, 'type' | 'at' | 'remember'> & { remember?: string[] };

/**
 * Answers a permission request from anywhere that reaches the run's Redis (a terminal, the web
 * board, `orca allow` / `orca deny`): a `permission_answer` on the run's stream. The agent's
 * worker takes the first answer there; one that comes later is recorded and changes nothing.
 */
export async function answerRequest(redis: Redis, keys: Keys, runId: string, input: AnswerInput): Promise<PermissionAnswerEvent> {
  const event = PermissionAnswerEventSchema.parse({ ...input, type: 'permission_answer', at: Date.now() });
  await appendRunEvent(redis, keys, { run_id: runId, task_id: event.task_id, source: 'run', event });
  return event;
}

/** Whether the answer that counts for its request is this one (and not one recorded before it). */
export function isSameAnswer(counted: Answer | undefined, ours: PermissionAnswerEvent): boolean {
  return (
    counted !== undefined &&
    counted.at === ours.at &&
    counted.by === ours.by &&
    counted.via === ours.via &&
    counted.allowed === ours.allowed
  );
}

/** The answer that counts for a request (the first on the stream), as the board keeps it; undefined while it has none. */
export async function firstAnswer(redis: Redis, keys: Keys, runId: string, requestId: string): Promise<Answer | undefined> {
  const raw = await redis.hget(keys.runAnswers(runId), requestId);
  return raw === null ? undefined : AnswerSchema.parse(JSON.parse(raw));
}
