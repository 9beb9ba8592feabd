import type { QueueEvents } from 'bullmq';
import type { AgentJobResult } from '../shared/infra/queue/agentJob.js';
import { type AgentQueue, parseJobResult } from '../shared/infra/queue/agentQueue.js';

/**
 * Waits for agent jobs to finish. QueueEvents wakes it as soon as a job completes or fails; a
 * slow poll of the job's state covers events missed while Redis reconnected, so a finished job
 * is never waited on forever.
 */
export class JobWaiter {
  private readonly waiting = new Map<string, Array<() => void>>();

  constructor(
    private readonly queue: AgentQueue,
    events: QueueEvents,
    private readonly pollMs = 1_000,
  ) {
    const wake = ({ jobId }: { jobId: string }) => {
      for (const resolve of this.waiting.get(jobId) ?? []) resolve();
    };
    events.on('completed', wake);
    events.on('failed', wake);
  }

  /** The job's validated result; a job that failed outright (a worker error) rejects with its reason. */
  async wait(jobId: string, signal?: AbortSignal): Promise<AgentJobResult> {
    for (;;) {
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
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, this.pollMs);
        const list = this.waiting.get(jobId) ?? [];
        list.push(done);
        this.waiting.set(jobId, list);
        signal?.addEventListener('abort', done, { once: true });
        const waiting = this.waiting;
        function done() {
          clearTimeout(timer);
          signal?.removeEventListener('abort', done);
          const rest = (waiting.get(jobId) ?? []).filter((fn) => fn !== done);
          if (rest.length > 0) waiting.set(jobId, rest);
          else waiting.delete(jobId);
          resolve();
        }
      });
    }
  }
}
