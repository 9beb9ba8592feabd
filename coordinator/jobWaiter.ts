import type { QueueEvents } from 'bullmq';
import type { AgentJobResult } from '../shared/infra/queue/agentJob.js';
import { type AgentQueue, parseJobResult } from '../shared/infra/queue/agentQueue.js';

/**
 * How often a waited job's state is read when no event came. Events carry every ending (a
 * completion, a failure, a stalled job failed when a worker takes it again, a removal); this only
 * covers events trimmed from the queue's stream before they were read (a long Redis outage). A job
 * costs Redis one state read per this long while it is waited for, not one a second.
 */
export const SAFETY_POLL_MS = 30_000;

/**
 * Waits for agent jobs to finish. QueueEvents wakes it as soon as a job completes, fails or is
 * removed; each waiter listens before it reads the job's state, so an ending between the read and
 * the wait still wakes it. A completion's event carries the job's result: the wait ends with it,
 * without reading the job again (two Redis round trips on the way from a worker's result to the
 * run's record of it). When the events' connection comes back after a drop, every waiter reads
 * its job's state again; a slow poll (SAFETY_POLL_MS) covers the rest, so a finished job is never
 * waited on forever.
 */
export class JobWaiter {
  private readonly waiting = new Map<string, Set<(completed?: Completed) => void>>();

  constructor(
    private readonly queue: AgentQueue,
    events: QueueEvents,
    private readonly pollMs = SAFETY_POLL_MS,
  ) {
    const wake = (jobId: string, completed?: Completed) => {
      for (const resolve of [...(this.waiting.get(jobId) ?? [])]) resolve(completed);
    };
    events.on('completed', ({ jobId, returnvalue }) => wake(jobId, { returnvalue }));
    events.on('failed', ({ jobId }) => wake(jobId));
    events.on('removed', ({ jobId }) => wake(jobId));
    // ioredis says `ready` on each (re)connection; events trimmed while it was away are not read again.
    events.client.then(
      (client) => client.on('ready', () => this.wakeAll()),
      // The events' own loop reports a connection that never came; the safety poll still ends every wait.
      () => undefined,
    );
  }

  /** The job's validated result; a job that failed outright (a worker error) rejects with its reason. */
  async wait(jobId: string, signal?: AbortSignal): Promise<AgentJobResult> {
    for (;;) {
      // Listening before the state is read: an ending between the read and the wait is not lost.
      const woken = this.listen(jobId, signal);
      try {
        // The state first, then the job: a job fetched before it finished carries no result yet.
        const state = await this.queue.queue.getJobState(jobId);
        if (state === 'unknown') throw new Error(`job ${jobId} is gone from the queue`);
        if (state === 'completed' || state === 'failed') {
          const job = await this.queue.getJob(jobId);
          if (!job) throw new Error(`job ${jobId} is gone from the queue`);
          if (state === 'completed') return parseJobResult(job.returnvalue, jobId);
          throw new Error(`job ${jobId} failed in its worker: ${job.failedReason}`);
        }
        if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('aborted');
        const completed = await woken.promise;
        if (completed) return parseJobResult(completed.returnvalue, jobId);
      } finally {
        woken.done();
      }
    }
  }

  /** A promise that settles on the job's next event (with its result, for a completion), the safety poll, or the signal's abort. */
  private listen(jobId: string, signal?: AbortSignal): { promise: Promise<Completed | undefined>; done: () => void } {
    let resolve!: (completed?: Completed) => void;
    const promise = new Promise<Completed | undefined>((settle) => {
      resolve = settle;
    });
    const timer = setTimeout(() => done(), this.pollMs);
    const list = this.waiting.get(jobId) ?? new Set();
    list.add(done);
    this.waiting.set(jobId, list);
    const waiting = this.waiting;
    function done(completed?: Completed) {
      clearTimeout(timer);
      signal?.removeEventListener('abort', abort);
      list.delete(done);
      if (list.size === 0 && waiting.get(jobId) === list) waiting.delete(jobId);
      resolve(completed);
    }
    const abort = () => done();
    signal?.addEventListener('abort', abort, { once: true });
    return { promise, done: () => done() };
  }

  private wakeAll(): void {
    for (const list of [...this.waiting.values()]) for (const resolve of [...list]) resolve();
  }
}

/** A completion as its event says it: the job's result, not yet checked. */
interface Completed {
  returnvalue: unknown;
}
