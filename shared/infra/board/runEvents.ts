import type { Redis } from 'ioredis';
import { type RunStreamEntry, RunStreamEntrySchema } from '../../core/events/runStreamEntry.js';
import type { Keys } from '../redis/keys.js';
import { firstWrites } from './firstWrites.js';
import { projectEntry } from './projectEvent.js';

/** Events kept per run: the stream is capped so a long run cannot grow Redis without bound. */
const STREAM_MAX = 20_000;

/**
 * Records an entry on its run's stream and, in the same MULTI, applies it to the board's run and
 * task hashes (../board/projectEvent.ts): a reader sees both or neither. An entry whose event is
 * of a known type but malformed is refused before anything is written, naming the field.
 */
export async function appendRunEvent(redis: Redis, keys: Keys, entry: RunStreamEntry): Promise<string> {
  const tx = redis.multi();
  tx.xadd(keys.events(entry.run_id), 'MAXLEN', '~', STREAM_MAX, '*', 'e', JSON.stringify(entry));
  const firsts = projectEntry(tx, keys, entry);
  const replies = await tx.exec();
  if (!replies) throw new Error(`the event for run ${entry.run_id} was not recorded: the transaction was discarded`);
  const failed = replies.find(([error]) => error);
  if (failed) throw new Error(`the event for run ${entry.run_id} was not fully recorded: ${failed[0]!.message}`);
  firstWrites.remember(firsts);
  return (replies[0]![1] as string | null) ?? '';
}

/**
 * Records several entries, in order, in one MULTI (each entry's stream entry and board writes as
 * appendRunEvent makes them): one round trip and one transaction where a writer had a queue of
 * them, as a job's events pile up while the one before is being written. When one of them is
 * malformed, nothing of the batch is sent and each is recorded alone instead, so the others are
 * still recorded, in order, and the malformed one is refused naming its field.
 */
export async function appendRunEvents(redis: Redis, keys: Keys, entries: readonly RunStreamEntry[]): Promise<void> {
  if (entries.length === 0) return;
  if (entries.length === 1) {
    await appendRunEvent(redis, keys, entries[0]!);
    return;
  }
  const tx = redis.multi();
  const firsts: Array<[string, string]> = [];
  try {
    for (const entry of entries) {
      tx.xadd(keys.events(entry.run_id), 'MAXLEN', '~', STREAM_MAX, '*', 'e', JSON.stringify(entry));
      firsts.push(...projectEntry(tx, keys, entry));
    }
  } catch {
    return appendEachAlone(redis, keys, entries);
  }
  const replies = await tx.exec();
  if (!replies) throw new Error(`${entries.length} events for run ${entries[0]!.run_id} were not recorded: the transaction was discarded`);
  const failed = replies.find(([error]) => error);
  if (failed) throw new Error(`the events for run ${entries[0]!.run_id} were not fully recorded: ${failed[0]!.message}`);
  firstWrites.remember(firsts);
}

/** Each entry in a MULTI of its own, in order; the first failure is thrown once all were tried. */
async function appendEachAlone(redis: Redis, keys: Keys, entries: readonly RunStreamEntry[]): Promise<void> {
  let failure: unknown;
  for (const entry of entries) {
    try {
      await appendRunEvent(redis, keys, entry);
    } catch (error) {
      failure ??= error;
    }
  }
  if (failure) throw failure;
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

/** The id of the run's latest entry (`0` when it has none): where a follower starts so it misses nothing after a snapshot. */
export async function lastRunEventId(redis: Redis, keys: Keys, runId: string): Promise<string> {
  const [latest] = await redis.xrevrange(keys.events(runId), '+', '-', 'COUNT', 1);
  return latest?.[0] ?? '0';
}
