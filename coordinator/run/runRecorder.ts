import type { Redis } from 'ioredis';
import { RunEventSchema, type RunEvent, type RunEventInput } from '../../shared/core/events/runEvent.js';
import type { Keys } from '../../shared/infra/redis/keys.js';
import { appendRunEvent, readRunEvents } from '../../shared/infra/board/runEvents.js';
import { applyRunEvent, emptyRunState, type RunState } from '../runState.js';

/**
 * The run's memory: every decision is recorded as a run event on the run's Redis stream and
 * applied to the coordinator's state in the same step, so what the board shows, what `resume`
 * rebuilds and what the coordinator acts on can never disagree.
 */
export class RunRecorder {
  readonly state: RunState;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly redis: Redis,
    private readonly keys: Keys,
    readonly runId: string,
    state?: RunState,
  ) {
    this.state = state ?? emptyRunState(runId);
  }

  /** Applies the event now and writes it in order; resolves once it is on the stream. */
  record(input: RunEventInput): Promise<void> {
    const event = RunEventSchema.parse({ ...input, at: Date.now() }) as RunEvent;
    applyRunEvent(this.state, event);
    const write = this.chain.then(() => appendRunEvent(this.redis, this.keys, { run_id: this.runId, source: 'run', event }));
    this.chain = write.catch(() => undefined);
    return write.then(() => undefined);
  }

  /** Rebuilds a run from its stream (for `orca resume`). */
  static async load(redis: Redis, keys: Keys, runId: string): Promise<RunRecorder> {
    const state = emptyRunState(runId);
    let after = '0';
    for (;;) {
      const page = await readRunEvents(redis, keys, runId, after, 1_000);
      if (page.length === 0) break;
      for (const { id, entry } of page) {
        after = id;
        if (entry.source === 'run') applyRunEvent(state, RunEventSchema.parse(entry.event));
      }
    }
    if (!state.base) throw new Error(`run ${runId} has no events in Redis: check the run id and REDIS_URL/ORCA_PREFIX.`);
    return new RunRecorder(redis, keys, runId, state);
  }
}
