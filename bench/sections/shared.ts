import type { BenchSection, Figure } from '../section.js';
import { sharedRemoteBenchmark } from '../sharedRemote.js';

/** Agents on a shared remote (git://) beside the local path. */
export const sharedSection: BenchSection = {
  name: 'shared',
  async run({ quick, timed }) {
    const figures: Figure[] = [];
    const details: Record<string, unknown> = {};
    const result = await timed('64 agents on a shared remote', () => sharedRemoteBenchmark({ agents: quick ? 16 : 64 }));
    details.shared = result;
    figures.push({
      key: 'shared_jobs_per_minute',
      value: result.shared_jobs_per_minute,
      reference: { what: 'local path, jobs/minute', value: result.local_jobs_per_minute },
      note: `${result.agents} scripted agents over ${result.workers} worker processes, git:// on loopback; not completed ${result.not_completed}`,
    });
    figures.push({
      key: 'shared_solo_job_ms',
      value: result.solo_shared_job_ms,
      reference: { what: 'one job alone on the local path, ms', value: result.solo_local_job_ms },
      note: 'one job at a time (median of 5): the difference is a job’s ls-remote, fetch and push over git:// without contention',
    });
    figures.push({
      key: 'shared_round_trip_ms_per_job',
      value: result.round_trip_ms_per_job,
      reference: { what: 'a job on the local path, ms', value: result.local_job_ms },
      note: `a worker's fetch and push (a shared job takes ${result.shared_job_ms} ms); the coordinator's fetch of a branch ${result.coordinator_fetch_ms} ms; the base's push ${result.publish_ms} ms once per run`,
    });

    return { figures, details };
  },
};
