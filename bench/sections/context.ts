import { CACHE_SHARE_TARGET, runContextBenchmark } from '../context.js';
import type { BenchSection, Figure } from '../section.js';
import { round } from '../stats.js';

/** The prompt cache's share of input tokens over a long session, with compaction. */
export const contextSection: BenchSection = {
  name: 'context',
  async run({ timed }) {
    const figures: Figure[] = [];
    const details: Record<string, unknown> = {};
    const result = await timed('context', () => runContextBenchmark());
    details.context = { without: result.without, with: result.with, compactions: result.compactions, contextWindow: result.contextWindow };
    const share = Math.min(result.with.cacheShare, result.without.cacheShare);
    figures.push({
      key: 'cache_share',
      value: round(share, 3),
      reference: { what: 'input tokens (with compaction)', value: result.with.inputTokens },
      target: `≥ ${CACHE_SHARE_TARGET}`,
      met: result.meetsTarget,
      note: `40 turns; with compaction ${round(result.with.cacheShare, 3)}, without ${round(result.without.cacheShare, 3)} (the lower is shown)`,
    });

    return { figures, details };
  },
};
