import type { RunnerCounts, RunnerParser } from './runnerParser.js';

/**
 * ava's default reporter (ava 6 and 7): a line per test, then a summary that names only what
 * happened besides passing once anything failed (tests/verify/fixtures/runners/ava):
 *
 *       ✔ adds
 *       ✘ [fail]: fails
 *       - [skip] skipped
 *       - [todo] later
 *       ─
 *       1 test failed
 *       1 test skipped
 *       1 test todo
 *
 * `N tests passed` is printed only when none failed; otherwise the passes are the `✔` lines.
 * A known failure (`test.failing` that failed) passes. `Couldn’t find any matching tests`
 * (`--match` matched nothing) and `No tests found in FILE` are runs of zero tests. `--tap` output
 * is TAP, counted as such.
 */
const SUMMARY = /^[ \t]*(\d+) tests? (passed|failed|skipped|todo)[ \t]*$/gm;
const KNOWN_FAILURE = /^[ \t]*(\d+) known failures?[ \t]*$/gm;
const PASS_LINE = /^[ \t]*✔ /gm;
const NONE = /^[ \t]*✘ (?:Couldn[’']t find any matching tests|No tests found in )/m;

export const avaParser: RunnerParser = {
  runner: 'ava',
  parse(text) {
    const counts: RunnerCounts = { runner: 'ava', passed: 0, failed: 0, skipped: 0, todo: 0 };
    let summarised = false;
    let passedLine = false;
    for (const [, count, kind] of text.matchAll(SUMMARY)) {
      summarised = true;
      const n = Number(count);
      if (kind === 'passed') {
        counts.passed += n;
        passedLine = true;
      } else if (kind === 'failed') counts.failed += n;
      else if (kind === 'skipped') counts.skipped += n;
      else counts.todo += n;
    }
    if (!summarised) return NONE.test(text) ? counts : undefined;
    if (!passedLine) counts.passed = [...text.matchAll(PASS_LINE)].length;
    else for (const [, count] of text.matchAll(KNOWN_FAILURE)) counts.passed += Number(count);
    return counts;
  },
};
