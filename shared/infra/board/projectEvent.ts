import type { ChainableCommander } from 'ioredis';
import type { RunStreamEntry } from '../../core/events/runStreamEntry.js';
import type { Usage } from '../../core/model/usage.js';
import type { Keys } from '../redis/keys.js';
import { type FirstWrites, firstWrites } from './firstWrites.js';
import { COORDINATOR_FIELDS, LIST_MAX, type RecordChange, type RunChange } from './runChange.js';
import { reduceRunEntry } from './runReducer.js';

/**
 * The board's state is a projection of the run's event stream: this file is the only writer of
 * the run and task hashes, and it writes them from one stream entry at a time, in the same MULTI
 * as the XADD that records the entry (runEvents.ts). So the hashes never say what the stream does
 * not, and they outlive any process that wrote them.
 *
 * What an entry changes is the reducer's to say (runReducer.ts); this file only writes it. Every
 * write depends only on the entry, never on what the hashes held before: counters are
 * incremented, first-seen times are set with HSETNX, the rest is overwritten. Two savings that
 * keep that: a record's first-seen writes (its `created_at`, its place in a sorted set), which
 * change nothing once made, are sent once per process (firstWrites.ts), and one entry's field
 * writes to one hash go as one HSET.
 */

/**
 * Adds to `tx` the writes that apply one stream entry to the board's hashes. Returns the first
 * writes it sent: the caller remembers them (`firstWrites.remember`) once `tx` succeeded.
 */
export function projectEntry(
  tx: ChainableCommander,
  keys: Keys,
  entry: RunStreamEntry,
  made: FirstWrites = firstWrites,
): Array<[string, string]> {
  const board = new BoardWrites(tx, keys, entry.run_id, made);
  for (const change of reduceRunEntry(entry)) board.write(change);
  board.flush();
  return board.firsts;
}

const USAGE_FIELDS = [
  'input_tokens',
  'output_tokens',
  'cache_read_tokens',
  'cache_creation_tokens',
  'thinking_tokens',
] as const satisfies ReadonlyArray<keyof Usage>;

class BoardWrites {
  /** The first writes sent (key, member), for the caller to remember once the MULTI succeeded. */
  readonly firsts: Array<[string, string]> = [];
  /** Field writes not yet sent, by hash: sent as one HSET, before any other write to that hash. */
  private readonly pending = new Map<string, Record<string, string | number>>();

  constructor(
    private readonly tx: ChainableCommander,
    private readonly keys: Keys,
    private readonly runId: string,
    private readonly made: FirstWrites,
  ) {}

  write(change: RunChange): void {
    switch (change.on) {
      case 'run':
        if (change.op === 'touch') this.zaddOnce(this.keys.runs(), change.at, this.runId);
        this.record(this.keys.run(this.runId), { run_id: this.runId }, change);
        return;
      case 'task':
        if (change.op === 'touch') this.zaddOnce(this.keys.runTasks(this.runId), change.at, change.task_id);
        this.record(this.keys.task(this.runId, change.task_id), { run_id: this.runId, task_id: change.task_id }, change);
        return;
      case 'note':
        this.push(this.keys.runNotes(this.runId), change.note);
        return;
      case 'evidence':
        this.push(
          change.task_id === undefined ? this.keys.runEvidence(this.runId) : this.keys.taskEvidence(this.runId, change.task_id),
          change.evidence,
        );
        return;
      case 'ask':
        this.tx.hset(this.keys.runAsks(this.runId), change.ask.id, JSON.stringify(change.ask));
        return;
      case 'answer':
        // HSETNX, in the MULTI that records the answer: the stream's first answer is the one kept.
        this.tx.hsetnx(this.keys.runAnswers(this.runId), change.answer.request_id, JSON.stringify(change.answer));
        return;
    }
  }

  /** Sends the field writes still pending (all of them, or one hash's). */
  flush(key?: string): void {
    for (const [hash, fields] of this.pending) {
      if (key !== undefined && hash !== key) continue;
      this.tx.hset(hash, fields);
      this.pending.delete(hash);
    }
  }

  private zaddOnce(key: string, at: number, member: string): void {
    if (this.made.has(key, member)) return;
    this.tx.zadd(key, 'NX', at, member);
    this.firsts.push([key, member]);
  }

  private record<R, Sums>(key: string, ids: Record<string, string>, change: RecordChange<R, Sums>): void {
    if (change.op === 'touch' || change.op === 'set') {
      const fields = change.op === 'touch' ? { ...ids, updated_at: change.at } : hashFields(change.fields);
      if (Object.keys(fields).length > 0) this.pending.set(key, { ...this.pending.get(key), ...fields });
      if (change.op === 'touch' && !this.made.has(key, 'created_at')) {
        this.flush(key);
        this.tx.hsetnx(key, 'created_at', change.at);
        this.firsts.push([key, 'created_at']);
      }
      return;
    }
    // Every other write to this hash goes after the field writes before it, as the reducer ordered them.
    this.flush(key);
    switch (change.op) {
      case 'setOnce':
        for (const [field, value] of Object.entries(hashFields(change.fields))) this.tx.hsetnx(key, field, value);
        return;
      case 'unset': {
        const fields = (change.fields as readonly string[]).filter((field) => !COORDINATOR_FIELDS.has(field));
        if (fields.length > 0) this.tx.hdel(key, ...fields);
        return;
      }
      case 'add':
        for (const [field, amount] of Object.entries(change.fields as object)) {
          if (COORDINATOR_FIELDS.has(field)) continue;
          if (typeof amount !== 'number') {
            for (const token of USAGE_FIELDS) {
              // Usage written before orca counted thinking has no thinking_tokens.
              const tokens = (amount as Usage)[token] ?? 0;
              if (tokens > 0) this.tx.hincrby(key, token, tokens);
            }
          } else if (amount > 0) {
            // Costs are fractions of a dollar; counts are whole.
            if (field === 'cost_usd') this.tx.hincrbyfloat(key, field, amount);
            else this.tx.hincrby(key, field, amount);
          }
        }
        return;
    }
  }

  private push(list: string, value: object): void {
    this.tx.rpush(list, JSON.stringify(value));
    this.tx.ltrim(list, -LIST_MAX, -1);
  }
}

/** A record's fields as hash fields: lists as JSON, flags as 1/0, usage as its token fields; what the coordinator alone keeps is left out. */
function hashFields(fields: object): Record<string, string | number> {
  const hash: Record<string, string | number> = {};
  for (const [field, value] of Object.entries(fields)) {
    if (value === undefined || COORDINATOR_FIELDS.has(field)) continue;
    if (field === 'usage') for (const token of USAGE_FIELDS) hash[token] = (value as Usage)[token] ?? 0;
    else if (typeof value === 'boolean') hash[field] = value ? '1' : '0';
    else if (Array.isArray(value)) hash[field] = JSON.stringify(value);
    else if (typeof value === 'string' || typeof value === 'number') hash[field] = value;
    else throw new Error(`the board has no hash form for the field ${field}`);
  }
  return hash;
}
