import type { BenchSection, Figure } from '../section.js';
import { START_TARGET, startBenchmark } from '../startLatency.js';

/** A job's start from the pool of ready worktrees (and without it) beside a bare `git worktree add`. */
export const startSection: BenchSection = {
  name: 'start',
  usesLargeRepo: true,
  async run({ quick, timed, large }) {
    const figures: Figure[] = [];
    const details: Record<string, unknown> = {};
    const result = await timed('start latency', () => startBenchmark(large!, { jobs: quick ? 5 : 60 }));
    details.start = result;
    const worktree = { what: 'git worktree add, ms (median)', value: result.worktree_add_ms };
    const phases = result.phases_p50;
    const cold = result.cold_phases_p50;
    figures.push({
      key: 'start_p50_ms',
      value: result.start_p50_ms,
      reference: worktree,
      target: `≤ ${START_TARGET.p50} × worktree_add = ${result.target_p50_ms}`,
      met: result.start_p50_ms <= result.target_p50_ms,
      note: `pool warmed (${result.pooled_jobs} of ${result.jobs} jobs took a pooled worktree); p50 phases: added → workspace ${phases.workspace_ms}, → session ${phases.harness_ms}, → first request ${phases.first_request_ms}; steps (p50 ms from added): ${Object.entries(
        result.steps_p50,
      )
        .map(([step, ms]) => `${step} ${ms}`)
        .join(', ')}`,
    });
    figures.push({
      key: 'start_p99_ms',
      value: result.start_p99_ms,
      reference: worktree,
      target: `≤ ${START_TARGET.p99} × worktree_add = ${result.target_p99_ms}`,
      met: result.start_p99_ms <= result.target_p99_ms,
      note: `pool warmed, ${result.jobs} jobs`,
    });
    figures.push({
      key: 'start_cold_p50_ms',
      value: result.cold_p50_ms,
      reference: worktree,
      note: `no pool (ORCA_POOL_SIZE=0); p99 ${result.cold_p99_ms}; p50 phases: added → workspace ${cold.workspace_ms}, → session ${cold.harness_ms}, → first request ${cold.first_request_ms}`,
    });
    figures.push({
      key: 'worktree_add_ms',
      value: result.worktree_add_ms,
      note: `bare \`git worktree add -b\` of the same commit, median; p99 ${result.worktree_add_p99_ms}`,
    });

    return { figures, details };
  },
};
