import { CLI_TO_RUN_ID_TARGET_MS, cliStartBenchmark } from '../cliStart.js';
import type { BenchSection, Figure } from '../section.js';

/** The CLI's time to its run id beside a bare Node's first line. */
export const cliSection: BenchSection = {
  name: 'cli',
  async run({ quick, timed }) {
    const figures: Figure[] = [];
    const details: Record<string, unknown> = {};
    const result = await timed('the CLI to its run id', () => cliStartBenchmark({ runs: quick ? 3 : 20 }));
    details.cli = result;
    figures.push({
      key: 'cli_to_run_id_ms',
      value: result.cli_to_run_id_ms,
      reference: { what: 'a bare `node -e` to its first stderr line, ms (median)', value: result.node_line_ms },
      target: `≤ ${CLI_TO_RUN_ID_TARGET_MS}`,
      met: result.cli_to_run_id_ms <= CLI_TO_RUN_ID_TARGET_MS,
      note: `\`orca run TASK --no-local-workers\` started → its \`orca: run <id>\` line, median of ${result.runs} (p90 ${result.cli_to_run_id_p90_ms} ms); options checked, repository inspected, Redis answered`,
    });

    return { figures, details };
  },
};
