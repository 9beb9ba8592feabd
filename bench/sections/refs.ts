import { refLooksBenchmark } from '../refLooks.js';
import type { BenchSection, Figure } from '../section.js';

/**
 * The watch's looks at the refs and the user's checkout in a repository full of orca's refs from
 * earlier runs. Target: no dearer than twice the same look before them (the looks are a few ms,
 * so twice leaves room for noise; reading orca's refs made them 50 × at 2,400).
 */
const TARGET_RATIO = 2;
export const refsSection: BenchSection = {
  name: 'refs',
  async run({ quick, timed }) {
    const result = await timed('looks at the refs', () => refLooksBenchmark({ repetitions: quick ? 5 : 30 }));
    const many = `${result.orca_refs} of orca's refs from earlier runs (loose) beside ${result.user_refs} of the user's`;
    const figures: Figure[] = [
      {
        key: 'ref_guard_look_ms',
        value: result.ref_guard_ms,
        reference: { what: 'the same look before any orca ref, ms', value: result.ref_guard_without_ms },
        target: `≤ ${TARGET_RATIO} × reference`,
        met: result.ref_guard_ms <= TARGET_RATIO * result.ref_guard_without_ms,
        note: `the ref guard's look after a writing call (RefGuard.restore, nothing to put back), ${many}; median of ${result.repetitions}`,
      },
      {
        key: 'checkout_look_ms',
        value: result.checkout_ms,
        reference: { what: 'the same look before any orca ref, ms', value: result.checkout_without_ms },
        target: `≤ ${TARGET_RATIO} × reference`,
        met: result.checkout_ms <= TARGET_RATIO * result.checkout_without_ms,
        note: `the look at the user's checkout (its status, branches, tags, HEAD), ${many}; median of ${result.repetitions}`,
      },
    ];
    return { figures, details: { refs: result } };
  },
};
