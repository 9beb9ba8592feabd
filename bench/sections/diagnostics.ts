import { diagnosticsBenchmark } from '../diagnostics.js';
import type { BenchSection, Figure } from '../section.js';

/** An Edit with language-server diagnostics beside one without. */
export const diagnosticsSection: BenchSection = {
  name: 'diagnostics',
  async run({ quick, timed }) {
    const figures: Figure[] = [];
    const details: Record<string, unknown> = {};
    const result = await timed('diagnostics', () => diagnosticsBenchmark({ warm: quick ? 4 : 30, cold: quick ? 1 : 5 }));
    details.diagnostics = result;
    const plain = { what: 'the same Edit without diagnostics, ms (median)', value: result.plain_ms };
    figures.push({
      key: 'diagnostics_edit_warm_ms',
      value: result.warm_ms,
      reference: plain,
      note: `median of ${result.warm_samples.length} Edits on a ${result.files}-file TypeScript project (${result.typescript ?? 'TypeScript'}), server up and project loaded; the edited file and its 2 importers checked`,
    });
    figures.push({
      key: 'diagnostics_edit_cold_ms',
      value: result.cold_ms,
      reference: plain,
      note: `median of ${result.cold_samples.length} first Edits of a fresh session (no warm-up on Read): server start, project load, diagnostics before and after`,
    });

    return { figures, details };
  },
};
