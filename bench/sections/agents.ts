import { agentsBenchmark } from '../agents.js';
import type { BenchSection, Figure } from '../section.js';

/** 256 agents at once over 4 workers: none stalled. */
export const agentsSection: BenchSection = {
  name: 'agents',
  async run({ quick, timed }) {
    const figures: Figure[] = [];
    const details: Record<string, unknown> = {};
    const result = await timed('256 agents', () => agentsBenchmark({ agents: quick ? 32 : 256 }));
    details.agents = result;
    figures.push({
      key: 'agents_256_stalled',
      value: result.stalled,
      reference: { what: 'agents running at once (peak)', value: result.peak_in_flight },
      target: '0',
      met: result.stalled === 0 && result.not_completed === 0,
      note: `${result.agents} agents over ${result.workers} workers, ${result.latency_ms} ms calls; restarted ${result.restarted}, not completed ${result.not_completed}; started ${result.starts_per_s}/s (queued → session start p50 ${result.start_p50_ms} ms, p99 ${result.start_p99_ms} ms); ${result.duration_s} s`,
    });

    return { figures, details };
  },
};
