import { GIT_PROCESSES_BEFORE, gitProcessesBenchmark } from '../gitProcesses.js';
import type { BenchSection, Figure } from '../section.js';

/** Git processes a job runs. */
export const gitprocsSection: BenchSection = {
  name: 'gitprocs',
  async run({ quick, timed }) {
    const figures: Figure[] = [];
    const details: Record<string, unknown> = {};
    const result = await timed('git processes per job', () => gitProcessesBenchmark({ jobs: quick ? 3 : 10 }));
    details.gitprocs = result;
    figures.push({
      key: 'git_processes_per_job',
      value: result.git_processes_per_job,
      reference: { what: 'the same job before issue 25, measured at its merge-base', value: GIT_PROCESSES_BEFORE },
      target: `< ${GIT_PROCESSES_BEFORE}`,
      met: result.git_processes_per_job < GIT_PROCESSES_BEFORE,
      note: `median of ${result.jobs} jobs (Read, Edit, Bash, Report, committed); ${Object.entries(result.by_subcommand)
        .slice(0, 6)
        .map(([name, count]) => `${name} ${count}`)
        .join(', ')}`,
    });

    return { figures, details };
  },
};
