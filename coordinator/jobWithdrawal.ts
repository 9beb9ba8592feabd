import type { AgentJob, AgentJobResult } from '../shared/infra/queue/agentJob.js';
import { blankJobResult } from '../shared/infra/queue/blankJobResult.js';
import type { OrcaServices } from './services.js';

/** Where a job waits for a worker: an abort takes it off the queue from there. */
const NOT_TAKEN = new Set(['waiting', 'delayed', 'prioritized', 'paused', 'waiting-children']);

/**
 * Waits for a job's result; on `signal`'s abort a job no worker has taken yet (none running, all
 * busy) is taken off the queue, and ends `aborted` without having started (`withdrawn` is told
 * why), so an abort never leaves a command waiting for a worker that may never come. A job a
 * worker holds ends as that worker ends it: its agent stopped, with how far it got.
 */
export async function waitUnlessWithdrawn(
  services: OrcaServices,
  job: AgentJob,
  jobId: string,
  signal: AbortSignal,
  withdrawn: (detail: string) => Promise<void> = async () => {},
): Promise<AgentJobResult> {
  try {
    return await services.waiter.wait(jobId, signal);
  } catch (error) {
    if (!signal.aborted) throw error;
  }
  const reason = signal.reason instanceof Error ? signal.reason.message : String(signal.reason);
  if (await takeOffQueue(services, jobId)) {
    const detail = `the run was aborted (${reason}) before a worker took its job`;
    await withdrawn(detail);
    return blankJobResult(job, '', { status: 'aborted', end_reason: 'aborted', detail });
  }
  // Taken by a worker meanwhile: it stops its agent and says how far it got.
  return await services.waiter.wait(jobId);
}

/** Removes the job if no worker holds it; false when a worker took it (its lock stops the removal). */
async function takeOffQueue(services: OrcaServices, jobId: string): Promise<boolean> {
  const queued = await services.queue.getJob(jobId);
  if (!queued || !NOT_TAKEN.has(await queued.getState())) return false;
  try {
    await queued.remove();
    return true;
  } catch {
    // A worker locked it between the state read and the removal: it is that worker's to end.
    return false;
  }
}
