import type { Redis } from 'ioredis';
import { z } from 'zod';
import type { Keys } from './keys.js';

/** Events kept per run: the stream is capped so a long run cannot grow Redis without bound. */
const STREAM_MAX = 20_000;

/**
 * What goes on a run's Redis stream: an agent's event tagged with its task, or a run-level event
 * from the coordinator. The board reads only this stream (and the hashes written from it).
 */
export const RunStreamEntrySchema = z.object({
  run_id: z.string(),
  task_id: z.string().optional(),
  source: z.enum(['agent', 'run']),
  event: z.record(z.string(), z.unknown()).and(z.object({ type: z.string(), at: z.number() })),
});
export type RunStreamEntry = z.infer<typeof RunStreamEntrySchema>;

export async function appendRunEvent(redis: Redis, keys: Keys, entry: RunStreamEntry): Promise<string> {
  const id = await redis.xadd(keys.events(entry.run_id), 'MAXLEN', '~', STREAM_MAX, '*', 'e', JSON.stringify(entry));
  return id ?? '';
}

/** Entries after `afterId` (exclusive; `0` for all), oldest first. Malformed entries are an error. */
export async function readRunEvents(
  redis: Redis,
  keys: Keys,
  runId: string,
  afterId = '0',
  count = 1_000,
): Promise<Array<{ id: string; entry: RunStreamEntry }>> {
  const start = afterId === '0' ? '-' : `(${afterId}`;
  const rows = await redis.xrange(keys.events(runId), start, '+', 'COUNT', count);
  return rows.map(([id, fields]) => {
    const raw = fields[fields.indexOf('e') + 1];
    const parsed = RunStreamEntrySchema.safeParse(raw === undefined ? undefined : JSON.parse(raw));
    if (!parsed.success) throw new Error(`run ${runId} event ${id} is malformed: ${parsed.error.message}`);
    return { id, entry: parsed.data };
  });
}
