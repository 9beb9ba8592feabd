import type { BenchSection, Figure } from '../section.js';
import { WORKER_RSS_TARGET_MB, workerRssBenchmark } from '../workerRss.js';

/** A worker's peak memory with 4 agents beside the same worker idle. */
export const rssSection: BenchSection = {
  name: 'rss',
  usesLargeRepo: true,
  async run({ timed, large }) {
    const figures: Figure[] = [];
    const details: Record<string, unknown> = {};
    const result = await timed('worker RSS', () => workerRssBenchmark(large!));
    details.rss = result;
    figures.push({
      key: 'worker_rss_mb',
      value: result.worker_rss_mb,
      reference: { what: 'idle worker RSS, MB', value: result.idle_rss_mb },
      target: `≤ ${WORKER_RSS_TARGET_MB}`,
      met: result.worker_rss_mb <= WORKER_RSS_TARGET_MB,
      note: `peak (VmHWM) with ${result.agents} agents on the 20,000-file repository; the worker's own CPU (user + system, not its children) ${result.start_cpu_ms} ms to start and be idle 1 s, ${result.agents_cpu_ms} ms for the agents`,
    });

    return { figures, details };
  },
};
