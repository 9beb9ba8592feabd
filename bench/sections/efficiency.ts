import { EFFICIENCY_TARGET, efficiencyBenchmark, JOB_COST_TARGET_MS } from '../efficiency.js';
import { endPhasesText } from '../jobEndPhases.js';
import type { BenchSection, Figure } from '../section.js';
import { round } from '../stats.js';

/** A run's makespan beside its ideal, at 500 ms and 2 s model calls, and what orca adds per job. */
export const efficiencySection: BenchSection = {
  name: 'efficiency',
  async run({ quick, timed }) {
    const figures: Figure[] = [];
    const details: Record<string, unknown> = {};
    const result = await timed('efficiency', () => efficiencyBenchmark({ repetitions: quick ? 1 : 3 }));
    details.efficiency = result;
    figures.push({
      key: 'efficiency',
      value: result.efficiency,
      reference: { what: 'ideal makespan, ms', value: result.ideal_ms },
      target: `≥ ${EFFICIENCY_TARGET}`,
      met: result.efficiency >= EFFICIENCY_TARGET,
      note:
        `dispatch phase (first worker job queued → last worker result) ${result.dispatch_ms} ms; ` +
        `with merges ${result.efficiency_with_merges}; per job: queued → first call ${result.start_overhead_ms} ms, last call → result ${result.end_overhead_ms} ms ` +
        `(4 jobs a slot at that cost alone: ${overheadBound(result)})`,
    });
    figures.push({
      key: 'job_start_cost_p50_ms',
      value: result.start_cost_p50_ms,
      reference: { what: "the job's model calls, first made → last answered (p50), ms", value: result.model_p50_ms },
      target: `≤ ${JOB_COST_TARGET_MS}`,
      met: result.start_cost_p50_ms <= JOB_COST_TARGET_MS,
      note: `per worker job, from when it could start (queued, its worker slot free) to its first model call; CPU of all orca's processes ${result.cpu_ms_per_job} ms a job (user + system)`,
    });
    figures.push({
      key: 'job_end_cost_p50_ms',
      value: result.end_cost_p50_ms,
      reference: { what: "the job's model calls, first made → last answered (p50), ms", value: result.model_p50_ms },
      target: `≤ ${JOB_COST_TARGET_MS}`,
      met: result.end_cost_p50_ms <= JOB_COST_TARGET_MS,
      note: `per worker job, from its last model call answered to its result recorded by the coordinator (the watch, gates, commit, release, result through Redis); p50 of each step: ${endPhasesText(result.end_phases_p50)}`,
    });
    // The same run with calls of 2 s, nearer a real model's: what orca adds per job is a fixed cost, not a share.
    const slow = await timed('efficiency, 2 s calls', () => efficiencyBenchmark({ latencyMs: 2_000, repetitions: 1 }));
    details.efficiency_2s_calls = slow;
    figures.push({
      key: 'efficiency_2s_calls',
      value: slow.efficiency,
      reference: { what: 'ideal makespan, ms', value: slow.ideal_ms },
      note: `as efficiency, with 2 s model calls; per job: queued → first call ${slow.start_overhead_ms} ms, last call → result ${slow.end_overhead_ms} ms`,
    });

    return { figures, details };
  },
};

/** The efficiency a run would have if each job cost only the measured overhead on top of its calls. */
function overheadBound(result: {
  ideal_ms: number;
  start_overhead_ms: number;
  end_overhead_ms: number;
  setup: { subtasks: number; slots: { workers: number; concurrency: number } };
}): number {
  const jobsPerSlot = Math.ceil(result.setup.subtasks / (result.setup.slots.workers * result.setup.slots.concurrency));
  return round(result.ideal_ms / (result.ideal_ms + jobsPerSlot * (result.start_overhead_ms + result.end_overhead_ms)), 3);
}
