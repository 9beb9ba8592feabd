import type { Redis } from 'ioredis';
import type { Usage } from '../../shared/core/model/usage.js';
import { OrcaHome } from '../../shared/core/runtime/orcaHome.js';
import { appendRunEvent } from '../../shared/infra/board/runEvents.js';
import { AgentQueue, parseAgentJobId } from '../../shared/infra/queue/agentQueue.js';
import { AGENT_QUEUE, type Keys } from '../../shared/infra/redis/keys.js';
import { readLedger, recordRunEnd } from '../runLedger.js';

/**
 * Ends a run whose coordinator is gone (killed, its host down, a second Ctrl-C), as its
 * coordinator would have on an abort: its jobs that wait for a worker are removed (running ones
 * were cancelled by the abort), and the run ends ABORTED, in Redis and in this installation's
 * record of it. `orca clean` then takes what it left, saving its agents' uncommitted work first.
 * What it spent is what its agents' events say they spent. Returns how many jobs were removed.
 */
export async function endOrphanedRun(
  redis: Redis,
  keys: Keys,
  run: { runId: string; reason: string; usage: Usage; costUsd: number },
): Promise<number> {
  const { runId } = run;
  const removed = await removeWaitingJobs(redis, keys, runId);
  await appendRunEvent(redis, keys, {
    run_id: runId,
    source: 'run',
    event: { type: 'run_end', at: Date.now(), status: 'ABORTED', usage: run.usage, cost_usd: run.costUsd, detail: run.reason },
  });
  const home = new OrcaHome(process.env.ORCA_HOME || undefined);
  const entry = readLedger(home).entries.get(runId);
  // Only a run this installation made has a record to end: one of another ORCA_HOME is not ours to claim.
  if (entry) recordRunEnd(home, entry, 'ABORTED');
  return removed;
}

/**
 * The run's jobs no worker holds: waiting ones, and active ones whose worker died without letting
 * go (their lock expired). An active job a worker holds is that worker's to stop (the abort).
 */
async function removeWaitingJobs(redis: Redis, keys: Keys, runId: string): Promise<number> {
  const queue = new AgentQueue(redis, keys);
  try {
    const jobs = await queue.queue.getJobs(['waiting', 'delayed', 'prioritized', 'paused', 'waiting-children', 'active']);
    const ours = jobs.filter((job) => job.id !== undefined && parseAgentJobId(job.id).runId === runId);
    let removed = 0;
    for (const job of ours) {
      if ((await job.getState()) === 'active' && (await redis.exists(`${keys.bull}:${AGENT_QUEUE}:${job.id}:lock`)) === 1) continue;
      await job.remove();
      removed += 1;
    }
    return removed;
  } finally {
    await queue.close();
  }
}
