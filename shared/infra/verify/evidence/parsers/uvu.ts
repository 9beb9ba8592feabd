import type { RunnerCounts, RunnerParser } from './runnerParser.js';

/**
 * uvu's summary, one per run (the `uvu` CLI, or a test file run by node):
 *
 *       Total:     3
 *       Passed:    2
 *       Skipped:   1
 *       Duration:  1.34ms
 *
 * `Total` counts the tests that ran (skipped ones are not in it), so the failures are
 * Total − Passed. `Total: 0` (no test file matched, or none declared a test) is zero tests.
 */
const SUMMARY = /^[ \t]*Total:[ \t]+(\d+)[ \t]*\n[ \t]*Passed:[ \t]+(\d+)[ \t]*\n[ \t]*Skipped:[ \t]+(\d+)[ \t]*$/gm;

export const uvuParser: RunnerParser = {
  runner: 'uvu',
  parse(text) {
    const summaries = [...text.matchAll(SUMMARY)];
    if (summaries.length === 0) return undefined;
    const counts: RunnerCounts = { runner: 'uvu', passed: 0, failed: 0, skipped: 0, todo: 0 };
    for (const [, total, passed, skipped] of summaries) {
      counts.passed += Number(passed);
      counts.failed += Number(total) - Number(passed);
      counts.skipped += Number(skipped);
    }
    return counts;
  },
};
