import { GREP_RATIO_TARGET, grepRatioBenchmark } from '../grepRatio.js';
import type { BenchSection, Figure } from '../section.js';

/** Grep beside raw `rg` on the 20,000-file repository. */
export const grepSection: BenchSection = {
  name: 'grep',
  usesLargeRepo: true,
  async run({ quick, timed, large }) {
    const figures: Figure[] = [];
    const details: Record<string, unknown> = {};
    const result = await timed('grep', () => grepRatioBenchmark(large!.dir, { repetitions: quick ? 3 : 15 }));
    details.grep = result;
    const content = result.cases[0]!;
    figures.push({
      key: 'grep_ratio',
      value: result.grep_ratio,
      reference: { what: 'raw rg, ms', value: content.rg_ms },
      target: `≤ ${GREP_RATIO_TARGET}`,
      met: result.grep_ratio <= GREP_RATIO_TARGET,
      note: `content mode, ${content.lines} lines: tool ${content.tool_ms} ms; ${result.cases
        .slice(1)
        .map((c) => `${c.mode} ${c.ratio}`)
        .join(', ')}`,
    });

    return { figures, details };
  },
};
