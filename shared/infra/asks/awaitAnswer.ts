import type { Redis } from 'ioredis';
import { PermissionAnswerEventSchema } from '../../core/events/permissionAsk.js';
import type { RunStreamEntry } from '../../core/events/runStreamEntry.js';
import { type Answer, AnswerSchema } from '../board/boardSchemas.js';
import { followRunEvents } from '../board/runEventFollower.js';
import type { Keys } from '../redis/keys.js';

/**
 * Waits on the run's stream, after `afterId`, for the first answer to a request. `connection` is
 * the caller's own (XREAD BLOCK holds it); aborting `signal` resolves at once with undefined, and
 * the caller ends the read in flight by disconnecting it.
 */
export async function awaitAnswer(
  connection: Redis,
  keys: Keys,
  runId: string,
  requestId: string,
  afterId: string,
  signal: AbortSignal,
): Promise<Answer | undefined> {
  if (signal.aborted) return undefined;
  const aborted = new Promise<undefined>((resolve) => signal.addEventListener('abort', () => resolve(undefined), { once: true }));
  const found = new AbortController();
  let answer: Answer | undefined;
  const onEntry = (entry: RunStreamEntry): void => {
    const { event } = entry;
    if (answer || entry.source !== 'run' || event.type !== 'permission_answer' || event.request_id !== requestId) return;
    const { type: _type, ...fields } = PermissionAnswerEventSchema.parse(event);
    answer = AnswerSchema.parse(fields);
    found.abort();
  };
  const read = followRunEvents(connection, keys, runId, onEntry, AbortSignal.any([signal, found.signal]), afterId).then(() => answer);
  // Once aborted, the read is ended by the caller's disconnect: its rejection then is expected.
  read.catch(() => undefined);
  return Promise.race([read, aborted]);
}
