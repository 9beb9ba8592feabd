import { FANOUT_CACHE_WRITES_TARGET, fanoutBenchmark } from '../fanout.js';
import type { BenchSection, Figure } from '../section.js';

/** Explore agents' first requests sharing one cache write. */
export const fanoutSection: BenchSection = {
  name: 'fanout',
  async run({ quick, timed }) {
    const figures: Figure[] = [];
    const details: Record<string, unknown> = {};
    const result = await timed('fan-out', () => fanoutBenchmark({ repetitions: quick ? 1 : 3 }));
    details.fanout = result;
    figures.push({
      key: 'fanout_cache_writes',
      value: result.fanout_cache_writes,
      reference: { what: 'the same with the hold off (ORCA_FANOUT_HOLD_MS=0)', value: result.hold_off_cache_writes },
      target: `≤ ${FANOUT_CACHE_WRITES_TARGET}`,
      met: result.fanout_cache_writes <= FANOUT_CACHE_WRITES_TARGET,
      note:
        `cache-write tokens of ${result.agents} explore agents' first requests started together, per static prefix (${result.static_prefix_tokens} tokens); ` +
        `real SDK against the stand-in's cache, answers starting after ${result.start_delay_ms} ms; ` +
        `wave (queued → last first response started) ${result.wave_ms.hold} ms held, ${result.wave_ms.off} ms not; median of ${result.hold.length}`,
    });

    return { figures, details };
  },
};
