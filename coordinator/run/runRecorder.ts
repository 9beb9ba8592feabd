import type { Redis } from 'ioredis';
import { type RunEvent, type RunEventInput, RunEventSchema } from '../../shared/core/events/runEvent.js';
import type { RunStreamEntry } from '../../shared/core/events/runStreamEntry.js';
import { appendRunEvent, readRunEvents } from '../../shared/infra/board/runEvents.js';
import { emptyRunFold, foldRunEntry, type RunFold } from '../../shared/infra/board/runFold.js';
import type { Keys } from '../../shared/infra/redis/keys.js';

/**
 * The run's memory: every decision is recorded as a run event on the run's Redis stream and
 * folded into the coordinator's state in the same step, by the rules the board projects it with
 * (../../shared/infra/board/runReducer.ts), so what the board shows, what `resume` rebuilds and
 * what the coordinator acts on can never disagree.
 *
 * The coordinator folds only its own (run) events, live and on resume: agents' events reach it
 * later than its own, through the stream, so folded live they would land after newer decisions
 * (an agent's `end` after its task was merged) and undo them.
 */
export class RunRecorder {
  readonly state: RunFold;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly redis: Redis,
    private readonly keys: Keys,
    readonly runId: string,
    state?: RunFold,
  ) {
    this.state = state ?? emptyRunFold(runId);
  }

  /** Applies the event now and writes it in order; resolves once it is on the stream. */
  record(input: RunEventInput): Promise<void> {
    const event = RunEventSchema.parse({ ...input, at: Date.now() }) as RunEvent;
    const entry: RunStreamEntry = { run_id: this.runId, source: 'run', event };
    foldRunEntry(this.state, entry);
    const write = this.chain.then(() => appendRunEvent(this.redis, this.keys, entry));
    this.chain = write.catch(() => undefined);
    return write.then(() => undefined);
  }

  /** Rebuilds a run from its stream (for `orca resume`). */
  static async load(redis: Redis, keys: Keys, runId: string): Promise<RunRecorder> {
    const state = emptyRunFold(runId);
    let after = '0';
    for (;;) {
      const page = await readRunEvents(redis, keys, runId, after, 1_000);
      if (page.length === 0) break;
      for (const { id, entry } of page) {
        after = id;
        if (entry.source !== 'run') continue;
        // A run event this version does not know stops the resume (the board only skips it): carrying on past it could redo or skip what it recorded.
        RunEventSchema.parse(entry.event);
        foldRunEntry(state, entry);
      }
    }
    if (!state.run.base) throw new Error(`run ${runId} has no events in Redis: check the run id and REDIS_URL/ORCA_PREFIX.`);
    return new RunRecorder(redis, keys, runId, state);
  }
}
