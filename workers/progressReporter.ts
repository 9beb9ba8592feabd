import type { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { AgentEvent } from '../shared/core/events/agentEvent.js';
import type { RunStreamEntry } from '../shared/core/events/runStreamEntry.js';
import { SecretRedactor } from '../shared/core/runtime/secretRedaction.js';
import { appendRunEvents } from '../shared/infra/board/runEvents.js';
import type { AgentJob } from '../shared/infra/queue/agentJob.js';
import type { Keys } from '../shared/infra/redis/keys.js';

/** How often a job's progress is written to BullMQ at most. */
const PROGRESS_EVERY_MS = 500;
/** Entries written in one MULTI at most: a batch stays a short transaction however far Redis fell behind. */
const BATCH_MAX = 100;

/**
 * Sends one job's events where the rest of orca reads them: every event (but streamed deltas and
 * the model's thinking, which stays in the agent's own transcript) to the run's Redis stream, in
 * order, redacted; a compact progress record (turn, tokens, current tool) to the BullMQ job, throttled.
 *
 * Writes go one after another. The events that come while one is being written (a call's result,
 * its notices, the next turn's start) wait together and go as one batch, one MULTI
 * (appendRunEvents), once it is done: the same order, a round trip and a transaction for a burst
 * instead of one each, on the worker's event loop beside its agents.
 */
export class ProgressReporter {
  private chain: Promise<unknown> = Promise.resolve();
  /** The batch still taking entries: queued behind the write before it, not yet sent. */
  private open?: { entries: RunStreamEntry[]; recorded: Promise<void> };
  private lastProgress = 0;
  private failure: unknown;
  private readonly redactor = new SecretRedactor();
  private readonly state = { turn: 0, tool: null as string | null, input_tokens: 0, output_tokens: 0, cost_usd: 0 };

  constructor(
    private readonly job: Job,
    private readonly redis: Redis,
    private readonly keys: Keys,
    private readonly payload: AgentJob,
  ) {}

  agentEvent(event: AgentEvent): void {
    if (event.type === 'text_delta' || event.type === 'thinking') return;
    if (event.type === 'turn_start') this.state.turn = event.turn;
    if (event.type === 'tool_call') this.state.tool = event.name;
    if (event.type === 'tool_result') this.state.tool = null;
    if (event.type === 'usage') {
      this.state.input_tokens = event.total.input_tokens + event.total.cache_read_tokens + event.total.cache_creation_tokens;
      this.state.output_tokens = event.total.output_tokens;
      this.state.cost_usd = event.total_cost_usd;
    }
    this.append(event as unknown as Record<string, unknown> & { type: string; at: number });
    const now = Date.now();
    if (now - this.lastProgress >= PROGRESS_EVERY_MS || event.type === 'end') {
      this.lastProgress = now;
      const progress = { ...this.state };
      this.enqueue(() => this.job.updateProgress(progress));
    }
  }

  /** A worker-side event about this task (its workspace, ports, …). */
  async runEvent(event: Record<string, unknown> & { type: string }): Promise<void> {
    this.append({ ...event, at: Date.now() });
  }

  /**
   * A run event about this task written from the worker (its own answer to a permission request:
   * a timeout, an abort), in order after everything sent before it; resolves once it is recorded.
   */
  runLevelEvent(event: Record<string, unknown> & { type: string }): Promise<void> {
    return this.record({
      run_id: this.payload.run_id,
      task_id: this.payload.task_id,
      source: 'run',
      event: this.redactor.redact({ ...event, at: Date.now() }),
    });
  }

  /** Waits for everything sent so far; throws the first failure to write. */
  async flush(): Promise<void> {
    await this.chain;
    if (this.failure) throw this.failure;
  }

  private append(event: Record<string, unknown> & { type: string; at: number }): void {
    void this.record({
      run_id: this.payload.run_id,
      task_id: this.payload.task_id,
      source: 'agent',
      event: this.redactor.redact(event),
    }).catch(() => undefined); // kept in `failure`, thrown by flush()
  }

  /** Adds the entry to the open batch (a new one queued behind the last write when none is open); resolves once it is recorded. */
  private record(entry: RunStreamEntry): Promise<void> {
    if (!this.open || this.open.entries.length >= BATCH_MAX) {
      const entries: RunStreamEntry[] = [];
      const recorded = this.chain.then(() => {
        // Sent from here on: what comes next waits for a batch of its own, behind this one.
        if (this.open?.entries === entries) this.open = undefined;
        return appendRunEvents(this.redis, this.keys, entries);
      });
      this.open = { entries, recorded };
      this.chain = recorded.catch((error: unknown) => {
        this.failure ??= error;
      });
    }
    this.open.entries.push(entry);
    return this.open.recorded;
  }

  private enqueue(write: () => Promise<unknown>): void {
    // A write of another kind keeps its place: events after it go in a batch after it.
    this.open = undefined;
    this.chain = this.chain.then(write).catch((error: unknown) => {
      // Later writes still go ahead; the first failure is thrown by flush(), failing the job, since
      // a run whose event stream has holes cannot be shown or resumed truthfully.
      this.failure ??= error;
    });
  }
}
