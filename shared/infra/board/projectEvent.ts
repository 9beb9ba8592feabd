import type { ChainableCommander } from 'ioredis';
import type { RunStreamEntry } from '../../core/events/runStreamEntry.js';
import type { Usage } from '../../core/model/usage.js';
import type { Keys } from '../redis/keys.js';
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
 * incremented, first-seen times are set with HSETNX, the rest is overwritten.
 */

/** Adds to `tx` the writes that apply one stream entry to the board's hashes. */
export function projectEntry(tx: ChainableCommander, keys: Keys, entry: RunStreamEntry): void {
  const board = new BoardWrites(tx, keys, entry.run_id);
  for (const change of reduceRunEntry(entry)) board.write(change);
}

const USAGE_FIELDS = [
  'input_tokens',
  'output_tokens',
  'cache_read_tokens',
  'cache_creation_tokens',
  'thinking_tokens',
] as const satisfies ReadonlyArray<keyof Usage>;

class BoardWrites {
  constructor(
    private readonly tx: ChainableCommander,
    private readonly keys: Keys,
    private readonly runId: string,
  ) {}

  write(change: RunChange): void {
    switch (change.on) {
      case 'run':
        if (change.op === 'touch') this.tx.zadd(this.keys.runs(), 'NX', change.at, this.runId);
        this.record(this.keys.run(this.runId), { run_id: this.runId }, change);
        return;
      case 'task':
        if (change.op === 'touch') this.tx.zadd(this.keys.runTasks(this.runId), 'NX', change.at, change.task_id);
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

  private record<R, Sums>(key: string, ids: Record<string, string>, change: RecordChange<R, Sums>): void {
    switch (change.op) {
      case 'touch':
        this.tx.hset(key, { ...ids, updated_at: change.at });
        this.tx.hsetnx(key, 'created_at', change.at);
        return;
      case 'set': {
        const fields = hashFields(change.fields);
        if (Object.keys(fields).length > 0) this.tx.hset(key, fields);
        return;
      }
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
