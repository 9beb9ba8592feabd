import type { BenchSection, Figure } from '../section.js';
import { sparseBenchmark } from '../sparseCheckout.js';

/** A workspace with orca.json's sparsePaths beside the whole checkout. */
export const sparseSection: BenchSection = {
  name: 'sparse',
  usesLargeRepo: true,
  async run({ quick, timed, large, largeRoot }) {
    const figures: Figure[] = [];
    const details: Record<string, unknown> = {};
    const result = await timed('sparse checkout', () => sparseBenchmark(large!, largeRoot!, { repetitions: quick ? 1 : 5 }));
    details.sparse = result;
    figures.push({
      key: 'sparse_workspace_ms',
      value: result.sparse_ms,
      reference: { what: 'the same workspace checked out whole, ms', value: result.full_ms },
      note: `a worker's workspace (prepareWorkspace) with orca.json sparsePaths, its task owning one folder: ${result.sparse_files} of ${result.full_files} files, ${result.ratio} of the whole checkout's time, median of ${result.repetitions}`,
    });

    return { figures, details };
  },
};
