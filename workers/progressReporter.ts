import type { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { AgentEvent } from '../shared/core/events/agentEvent.js';
import { SecretRedactor } from '../shared/core/runtime/secretRedaction.js';
import { appendRunEvent } from '../shared/infra/board/runEvents.js';
import type { AgentJob } from '../shared/infra/queue/agentJob.js';
import type { Keys } from '../shared/infra/redis/keys.js';

/** How often a job's progress is written to BullMQ at most. */
const PROGRESS_EVERY_MS = 500;

/**
 * Sends one job's events where the rest of orca reads them: every event (but streamed deltas and
 * the model's thinking, which stays in the agent's own transcript) to the run's Redis stream, in
 * order, redacted; a compact progress record (turn, tokens, current tool) to the BullMQ job, throttled.
 */
export class ProgressReporter {
  private chain: Promise<unknown> = Promise.resolve();
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
    const entry = {
      run_id: this.payload.run_id,
      task_id: this.payload.task_id,
      source: 'run' as const,
      event: this.redactor.redact({ ...event, at: Date.now() }),
    };
    const written = this.chain.then(() => appendRunEvent(this.redis, this.keys, entry));
    this.chain = written.catch((error: unknown) => {
      this.failure ??= error;
    });
    return written.then(() => undefined);
  }

  /** Waits for everything sent so far; throws the first failure to write. */
  async flush(): Promise<void> {
    await this.chain;
    if (this.failure) throw this.failure;
  }

  private append(event: Record<string, unknown> & { type: string; at: number }): void {
    const entry = {
      run_id: this.payload.run_id,
      task_id: this.payload.task_id,
      source: 'agent' as const,
      event: this.redactor.redact(event),
    };
    this.enqueue(() => appendRunEvent(this.redis, this.keys, entry));
  }

  private enqueue(write: () => Promise<unknown>): void {
    this.chain = this.chain.then(write).catch((error: unknown) => {
      // Later writes still go ahead; the first failure is thrown by flush(), failing the job, since
      // a run whose event stream has holes cannot be shown or resumed truthfully.
      this.failure ??= error;
    });
  }
}
