import type { Redis } from 'ioredis';
import { PermissionAnswerEventSchema } from '../../core/events/permissionAsk.js';
import { RunStreamEntrySchema } from '../../core/events/runStreamEntry.js';
import { type Answer, AnswerSchema } from '../board/boardSchemas.js';
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
  const read = (async (): Promise<Answer | undefined> => {
    let last = afterId;
    const key = keys.events(runId);
    while (!signal.aborted) {
      const reply = (await connection.xread('COUNT', 500, 'BLOCK', 1_000, 'STREAMS', key, last)) as Array<
        [string, Array<[string, string[]]>]
      > | null;
      for (const [, rows] of reply ?? []) {
        for (const [id, fields] of rows) {
          last = id;
          const raw = fields[fields.indexOf('e') + 1];
          const entry = RunStreamEntrySchema.safeParse(raw === undefined ? undefined : JSON.parse(raw));
          if (!entry.success) throw new Error(`run ${runId} event ${id} is malformed: ${entry.error.message}`);
          const { event } = entry.data;
          if (entry.data.source !== 'run' || event.type !== 'permission_answer' || event.request_id !== requestId) continue;
          const { type: _type, ...answer } = PermissionAnswerEventSchema.parse(event);
          return AnswerSchema.parse(answer);
        }
      }
    }
    return undefined;
  })();
  // Once aborted, the read is ended by the caller's disconnect: its rejection then is expected.
  read.catch(() => undefined);
  return Promise.race([read, aborted]);
}
