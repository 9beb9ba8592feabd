import type { RunnerCounts, RunnerParser } from './runnerParser.js';

/**
 * jest's summary, one per run:
 *
 *     Test Suites: 1 failed, 1 passed, 2 total
 *     Tests:       1 failed, 1 skipped, 1 todo, 2 passed, 5 total
 *
 * `Tests:       21 skipped, 21 total` (every test filtered out or skipped) is zero executed.
 * `No tests found, exiting with code N` is a run of zero tests.
 */
const SUMMARY = /^[ \t]*Tests:[ \t]+(.+?),?[ \t]*(\d+) total[ \t]*$/gm;
const PART = /(\d+) (passed|failed|skipped|todo|pending)/g;
const NO_TESTS = /^No tests found, exiting with code \d+/m;

export const jestParser: RunnerParser = {
  runner: 'jest',
  parse(text) {
    const counts: RunnerCounts = { runner: 'jest', passed: 0, failed: 0, skipped: 0, todo: 0 };
    let seen = false;
    for (const summary of text.matchAll(SUMMARY)) {
      seen = true;
      for (const [, count, kind] of summary[1]!.matchAll(PART)) {
        const n = Number(count);
        if (kind === 'passed') counts.passed += n;
        else if (kind === 'failed') counts.failed += n;
        else if (kind === 'todo') counts.todo += n;
        else counts.skipped += n;
      }
    }
    if (!seen && NO_TESTS.test(text)) seen = true;
    return seen ? counts : undefined;
  },
};
