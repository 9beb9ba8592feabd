import type { RunnerCounts, RunnerParser } from './runnerParser.js';

/**
 * node-tap's own summary (tap 18 and later), the last lines of its run, whichever reporter:
 *
 *     # { total: 5, pass: 2, fail: 1, todo: 1, skip: 1 }
 *
 * Its TAP nests each test file as one subtest, so the generic TAP parser would count files, not
 * tests: this summary is what counts. A field that is 0 is left out (`# { total: 2, pass: 0,
 * skip: 2 }` when a `--grep` matched nothing: zero executed).
 */
const SUMMARY = /^# \{ total: \d+(?:, (?:pass|fail|todo|skip): \d+)* \}[ \t]*$/gm;
const FIELD = /(pass|fail|todo|skip): (\d+)/g;

export const nodeTapParser: RunnerParser = {
  runner: 'node-tap',
  parse(text) {
    const summaries = [...text.matchAll(SUMMARY)];
    if (summaries.length === 0) return undefined;
    const counts: RunnerCounts = { runner: 'node-tap', passed: 0, failed: 0, skipped: 0, todo: 0 };
    for (const [summary] of summaries) {
      for (const [, field, count] of summary.matchAll(FIELD)) {
        const n = Number(count);
        if (field === 'pass') counts.passed += n;
        else if (field === 'fail') counts.failed += n;
        else if (field === 'todo') counts.todo += n;
        else counts.skipped += n;
      }
    }
    return counts;
  },
};
