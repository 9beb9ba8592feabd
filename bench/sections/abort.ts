import { ABORT_TARGET_MS, abortBenchmark } from '../abortLatency.js';
import type { BenchSection, Figure } from '../section.js';

/** `orca abort` to every agent stopped. */
export const abortSection: BenchSection = {
  name: 'abort',
  async run({ quick, timed }) {
    const figures: Figure[] = [];
    const details: Record<string, unknown> = {};
    const result = await timed('abort', () => abortBenchmark({ runs: quick ? 3 : 20 }));
    details.abort = result;
    figures.push({
      key: 'abort_p95_ms',
      value: result.abort_p95_ms,
      reference: { what: 'after the abort was published, p95 ms', value: result.after_publish_p95_ms },
      target: `≤ ${ABORT_TARGET_MS}`,
      met: result.abort_p95_ms <= ABORT_TARGET_MS,
      note: `${result.runs} runs; the CLI's own start (to publishing) p50 ${result.cli_start_p50_ms} ms`,
    });

    return { figures, details };
  },
};
