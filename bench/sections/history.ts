import { historyLooksBenchmark } from '../historyLooks.js';
import type { BenchSection, Figure } from '../section.js';

/**
 * The watch's looks where orca has run many times before (orca's refs in the repository, run
 * records in ORCA_HOME). Target for the looks at the refs: no dearer than twice the same look
 * before that history (they are a few ms, so twice leaves room for noise; reading orca's refs made
 * them 5 to 50 ×). The look at orca's state must stat every record (reported beside that floor).
 */
const TARGET_RATIO = 2;

export const historySection: BenchSection = {
  name: 'history',
  async run({ quick, timed }) {
    const result = await timed('looks after earlier runs', () => historyLooksBenchmark({ repetitions: quick ? 5 : 30 }));
    const refs = `${result.orca_refs} of orca's refs from earlier runs (loose) beside ${result.user_refs} of the user's`;
    const figure = (key: string, value: number, without: number, note: string): Figure => ({
      key,
      value,
      reference: { what: 'the same look before that history, ms', value: without },
      target: `≤ ${TARGET_RATIO} × reference`,
      met: value <= TARGET_RATIO * without,
      note: `${note}; median of ${result.repetitions}`,
    });
    const figures = [
      figure(
        'ref_guard_look_ms',
        result.ref_guard_ms,
        result.ref_guard_without_ms,
        `the ref guard's look after a writing call (RefGuard.restore, nothing to put back), ${refs}`,
      ),
      figure(
        'checkout_look_ms',
        result.checkout_ms,
        result.checkout_without_ms,
        `the look at the user's checkout (its status, branches, tags, HEAD), ${refs}`,
      ),
      {
        key: 'host_files_look_ms',
        value: result.host_files_ms,
        reference: { what: `an lstat of each of the ${result.run_records} run records, ms`, value: result.run_records_lstat_ms },
        note: `the look at the user's configuration and orca's state (HostFilesWatch.check, nothing changed), ${result.run_records} run records in ORCA_HOME; ${result.host_files_without_ms} ms before them. A record written in place changes only its own stat, so the look stats each: the reference is that floor; median of ${result.repetitions}`,
      },
    ];
    return { figures, details: { history: result } };
  },
};
