import type { Redis } from 'ioredis';
import { type RunStreamEntry, RunStreamEntrySchema } from '../../core/events/runStreamEntry.js';
import type { Keys } from '../redis/keys.js';

/**
 * Follows a run's event stream as it grows (XREAD BLOCK on a connection of its own), from
 * `afterId`, handing each entry to `onEntry`, until `signal` aborts. Returns the last id seen.
 */
export async function followRunEvents(
  connection: Redis,
  keys: Keys,
  runId: string,
  onEntry: (entry: RunStreamEntry, id: string) => void,
  signal: AbortSignal,
  afterId = '0',
): Promise<string> {
  let last = afterId;
  const key = keys.events(runId);
  while (!signal.aborted) {
    const reply = (await connection.xread('COUNT', 500, 'BLOCK', 500, 'STREAMS', key, last)) as Array<
      [string, Array<[string, string[]]>]
    > | null;
    for (const [, rows] of reply ?? []) {
      for (const [id, fields] of rows) {
        last = id;
        const raw = fields[fields.indexOf('e') + 1];
        const parsed = RunStreamEntrySchema.safeParse(raw === undefined ? undefined : JSON.parse(raw));
        if (!parsed.success) throw new Error(`run ${runId} event ${id} is malformed: ${parsed.error.message}`);
        onEntry(parsed.data, id);
      }
    }
  }
  return last;
}
