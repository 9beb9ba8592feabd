import { type Job, Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { describeZodError } from '../../core/boundary/zodIssues.js';
import { AGENT_QUEUE, type Keys } from '../redis/keys.js';
import { type AgentJob, type AgentJobInput, type AgentJobResult, AgentJobResultSchema, AgentJobSchema } from './agentJob.js';

/** A BullMQ job id for an attempt of a task: unique per run, task and attempt, and colon-free. */
export function agentJobId(runId: string, taskId: string, attempt: number): string {
  return `${runId}|${taskId}|${attempt}`;
}

/**
 * The parts of a job id made by `agentJobId`. The run comes first and is always there (an id
 * with no `|` is all run); task and attempt are missing from an id that was not made here.
 */
export function parseAgentJobId(jobId: string): { runId: string; taskId?: string; attempt?: number } {
  const [runId = '', taskId, attempt, ...rest] = jobId.split('|');
  if (taskId === undefined || attempt === undefined || rest.length > 0 || !/^\d+$/.test(attempt)) return { runId };
  return { runId, taskId, attempt: Number(attempt) };
}

/**
 * The one queue agent jobs go through. A payload is checked against its schema before it is
 * added, so a bad job never reaches a worker; the worker checks it again when it takes it.
 */
export class AgentQueue {
  readonly queue: Queue<AgentJob, AgentJobResult>;

  constructor(
    private readonly connection: Redis,
    readonly keys: Keys,
  ) {
    this.queue = new Queue<AgentJob, AgentJobResult>(AGENT_QUEUE, { connection, prefix: keys.bull });
  }

  async add(input: AgentJobInput, attempt = 1): Promise<Job<AgentJob, AgentJobResult>> {
    const parsed = AgentJobSchema.safeParse(input);
    if (!parsed.success) throw new Error(describeZodError(parsed.error, 'agent job'));
    const job = parsed.data;
    return this.queue.add(`${job.role.name}:${job.task_id}`, job, {
      jobId: agentJobId(job.run_id, job.task_id, attempt),
      // A crashed worker's job comes back through the stalled check; a job that failed outright
      // is not retried blindly: the coordinator decides what follows.
      attempts: 1,
      removeOnComplete: false,
      removeOnFail: false,
    });
  }

  async getJob(jobId: string): Promise<Job<AgentJob, AgentJobResult> | undefined> {
    return (await this.queue.getJob(jobId)) ?? undefined;
  }

  /**
   * Listens for job completions and failures (one connection of its own). From `lastEventId`
   * (see `lastEventId()`) when given, else from whenever its first read reaches Redis: with an id,
   * no event after it is missed, not before the first read nor across a reconnect.
   */
  events(connection: Redis, lastEventId?: string): QueueEvents {
    return new QueueEvents(AGENT_QUEUE, { connection, prefix: this.keys.bull, ...(lastEventId ? { lastEventId } : {}) });
  }

  /** The id of the queue's newest event ('0-0' when there is none yet): where a listener starts now. */
  async lastEventId(): Promise<string> {
    const [latest] = await this.connection.xrevrange(this.queue.keys.events!, '+', '-', 'COUNT', 1);
    return latest?.[0] ?? '0-0';
  }

  async close(): Promise<void> {
    await this.queue.close();
  }
}

/** A finished job's result, validated: a worker on another version cannot hand back garbage. */
export function parseJobResult(value: unknown, jobId: string): AgentJobResult {
  const parsed = AgentJobResultSchema.safeParse(value);
  if (!parsed.success) throw new Error(describeZodError(parsed.error, `the result of job ${jobId}`));
  return parsed.data;
}
