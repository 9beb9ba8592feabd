import { MERGE_TARGET_RATIO, mergeBenchmark } from '../mergeBench.js';
import type { BenchSection, Figure } from '../section.js';
import { round } from '../stats.js';

/** The coordinator's merge loop beside bare `git merge --no-ff`. */
export const mergeSection: BenchSection = {
  name: 'merge',
  usesLargeRepo: true,
  async run({ quick, timed, large, largeRoot }) {
    const figures: Figure[] = [];
    const details: Record<string, unknown> = {};
    const result = await timed('merge', () => mergeBenchmark(large!, largeRoot!, { repetitions: quick ? 1 : 3 }));
    details.merge = result;
    figures.push({
      key: 'merge_32_ms',
      value: result.merge_32_ms,
      reference: { what: 'bare git merge --no-ff × 32, ms', value: result.git_merge_32_ms },
      target: `≤ ${MERGE_TARGET_RATIO} × bare = ${round(MERGE_TARGET_RATIO * result.git_merge_32_ms)}`,
      met: result.merge_32_ms <= MERGE_TARGET_RATIO * result.git_merge_32_ms,
      note: `${result.per_merge_ms} ms per merge (${round(result.merge_32_ms / result.git_merge_32_ms, 3)} × bare), on the 20,000-file repository`,
    });
    figures.push({
      key: 'merges_per_s',
      value: result.merges_per_s,
      reference: { what: 'bare git merges/s', value: result.git_merges_per_s },
      note: 'the coordinator merge loop, one task at a time: the one serial part of a run (docs/scaling.md)',
    });

    return { figures, details };
  },
};
