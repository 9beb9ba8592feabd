import type { Redis } from 'ioredis';
import { z } from 'zod';
import { RunStreamEntrySchema } from '../../shared/core/events/runStreamEntry.js';
import type { Keys } from '../../shared/infra/redis/keys.js';
import { streamEntryTime } from '../../shared/infra/redis/streamEntryTime.js';
import type { KnownRuns, RunFacts } from './knownRuns.js';

/** What clean reads of the board's run hash, when there is one (every field a string). */
const RunHashSchema = z.looseObject({
  kind: z.string().optional(),
  status: z.string().optional(),
  ended_at: z.string().optional(),
  updated_at: z.coerce.number().optional(),
});

/**
 * What the run's record says: its event stream (`run_created` makes it a coordinator run,
 * `run_end` ends it) and the board's hash of it, if there is one. A malformed part is not
 * counted, and a note says so.
 */
export async function readRunRecord(
  redis: Redis,
  keys: Keys,
  facts: RunFacts,
  runs: KnownRuns,
  note: (line: string) => void,
): Promise<void> {
  const entries = [
    ...(await redis.xrange(keys.events(facts.id), '-', '+', 'COUNT', 20)),
    ...(await redis.xrevrange(keys.events(facts.id), '+', '-', 'COUNT', 200)),
  ];
  if (entries.length > 0) facts.inRedis = true;
  for (const [id, fields] of entries) {
    runs.touch(facts.id, streamEntryTime(id));
    const raw = fields[fields.indexOf('e') + 1];
    const parsed = RunStreamEntrySchema.safeParse(raw === undefined ? undefined : safeJson(raw));
    if (!parsed.success) {
      // Unreadable, it cannot say the run ended: the run is judged without it (kept, unless old).
      note(`note: run ${facts.id} event ${id} is malformed; it is not counted as the run's end`);
      continue;
    }
    if (parsed.data.source !== 'run') continue; // agents' events say nothing about the run's end
    if (parsed.data.event.type === 'run_created') facts.coordinated = true;
    if (parsed.data.event.type === 'run_end') facts.ended = `run_end ${String(parsed.data.event.status ?? '')}`.trim();
  }
  if ((await redis.type(keys.run(facts.id))) !== 'hash') return;
  facts.inRedis = true;
  const hash = RunHashSchema.safeParse(await redis.hgetall(keys.run(facts.id)));
  if (!hash.success) {
    note(
      `note: the record of run ${facts.id} is malformed (${hash.error.issues[0]?.message ?? 'unreadable'}); it is not counted as the run's end`,
    );
    return;
  }
  if (hash.data.kind === 'run') facts.coordinated = true;
  if (hash.data.ended_at || (hash.data.status && hash.data.status !== 'running'))
    facts.ended ??= `its record says ${hash.data.status ?? 'ended'}`;
  runs.touch(facts.id, hash.data.updated_at);
}

function safeJson(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}
