import type { Redis } from 'ioredis';
import { publishAbort, subscribeAborts } from '../../shared/infra/queue/runAbort.js';
import { connectRedis } from '../../shared/infra/redis/redisConnection.js';
import type { OrcaServices } from '../services.js';

/**
 * How a run is stopped: Ctrl-C, `orca abort` (from any process, over Redis), its wall clock
 * budget, or a step of the run itself (a budget, a rejected plan). The first reason is the run's;
 * it is said, and published so the run's agents are cancelled everywhere.
 */
export class RunStopper {
  private readonly abort = new AbortController();
  private why?: string;
  private wallClock?: NodeJS.Timeout;
  private interrupts = 0;
  private readonly onSigint = () => {
    this.interrupts += 1;
    // The second Ctrl-C leaves at once: the abort is published, the workers go with the CLI.
    if (this.interrupts > 1) process.exit(130);
    this.say('Ctrl-C: stopping the run (Ctrl-C again to leave at once)');
    this.stop('interrupted by the user (Ctrl-C)');
  };

  private constructor(
    private readonly services: OrcaServices,
    private readonly runId: string,
    private readonly say: (line: string) => void,
    private readonly subscriber: Redis,
  ) {}

  /** Listens for each way the run can be stopped until `close`. */
  static async open(services: OrcaServices, runId: string, say: (line: string) => void, wallClockMs?: number): Promise<RunStopper> {
    const stopper = new RunStopper(services, runId, say, connectRedis(services.redisService.url));
    await subscribeAborts(stopper.subscriber, services.keys, (id, reason) => {
      if (id === runId) stopper.stop(reason);
    });
    process.on('SIGINT', stopper.onSigint);
    if (wallClockMs)
      stopper.wallClock = setTimeout(() => stopper.stop(`the run's wall clock budget of ${wallClockMs} ms ran out`), wallClockMs);
    return stopper;
  }

  /** Aborted once the run is stopped. */
  get signal(): AbortSignal {
    return this.abort.signal;
  }

  /** Why the run was stopped; undefined while it goes on. */
  get reason(): string | undefined {
    return this.why;
  }

  stop(reason: string): void {
    if (this.abort.signal.aborted) return;
    this.why = reason;
    this.say(`stopping the run: ${reason}`);
    this.abort.abort(new Error(reason));
    void publishAbort(this.services.redis, this.services.keys, this.runId, reason);
  }

  close(): void {
    process.off('SIGINT', this.onSigint);
    // Interrupted once, the command still ends its run (hand-over, the result): a second Ctrl-C leaves at once then too.
    if (this.interrupts > 0) process.once('SIGINT', () => process.exit(130));
    if (this.wallClock) clearTimeout(this.wallClock);
    this.subscriber.disconnect();
  }
}
