import { commandMark } from '../shared/core/runtime/commandTrace.js';
import { appendRunEvent } from '../shared/infra/board/runEvents.js';
import type { AgentJob, AgentJobResult } from '../shared/infra/queue/agentJob.js';
import { agentJobId } from '../shared/infra/queue/agentQueue.js';
import { isAborted, subscribeAborts } from '../shared/infra/queue/runAbort.js';
import { connectRedis } from '../shared/infra/redis/redisConnection.js';
import { waitUnlessWithdrawn } from './jobWithdrawal.js';
import type { OrcaServices } from './services.js';

/**
 * `orca agent`'s wait for its one job, as the queue checked it when it was added (its defaults filled in). A worker that runs the job ends it on the run's abort with
 * its own result; a job no worker has taken yet (none running, all busy) is taken off the queue
 * here on the abort, and the agent ends `aborted` without having started, so an abort never
 * leaves the command waiting for a worker that may never come.
 */
export async function waitForAgentJob(services: OrcaServices, job: AgentJob): Promise<AgentJobResult> {
  const jobId = agentJobId(job.run_id, job.task_id, 1);
  const aborted = new AbortController();
  const subscriber = connectRedis(services.redisService.url);
  try {
    await subscribeAborts(subscriber, services.keys, (runId, reason) => {
      if (runId === job.run_id) aborted.abort(new Error(reason));
    });
    // Published before the subscription began: still this run's abort.
    if (await isAborted(services.redis, services.keys, job.run_id)) aborted.abort(new Error('orca abort'));
    commandMark('abort_subscribed');
    return await waitUnlessWithdrawn(services, job, jobId, aborted.signal, (detail) =>
      recordTaskState(services, job, jobId, 'aborted', detail),
    );
  } finally {
    subscriber.disconnect();
  }
}

/**
 * The task's state on the run's board, from this command: `queued` once its job is on the queue
 * (the run is recorded from then on, so `orca abort` and `orca status` know it before a worker
 * does), `aborted` when the abort took it off again.
 */
export async function recordTaskState(
  services: OrcaServices,
  job: Pick<AgentJob, 'run_id' | 'task_id'>,
  jobId: string,
  status: 'queued' | 'aborted',
  detail?: string,
): Promise<void> {
  await appendRunEvent(services.redis, services.keys, {
    run_id: job.run_id,
    source: 'run',
    event: { type: 'task_state', at: Date.now(), task_id: job.task_id, status, attempt: 1, job_id: jobId, ...(detail ? { detail } : {}) },
  });
}
