import type { RunnerCounts, RunnerParser } from './runnerParser.js';

/**
 * pytest's last line, framed by `=` (or bare under -q):
 *
 *     ===== 1 failed, 1 passed, 1 skipped, 1 xfailed, 1 error in 0.80s =====
 *     ===== 5 deselected in 0.78s =====
 *     ===== no tests ran in 0.01s =====
 *
 * Errors (a test that could not even set up) count as failed. An xfail that failed as expected
 * proves nothing passes: it counts as skipped, with deselected tests; an xpass counts as passed.
 * Warnings and reruns are not tests. Several sessions (tox, several invocations) are added up.
 */
const SUMMARY = /^=*[ \t]*((?:\d+ [a-z]+(?:, )?)+|no tests ran) in [\d.]+s(?: \([^)]*\))?[ \t]*=*[ \t]*$/gm;
const PART = /(\d+) ([a-z]+)/g;

export const pytestParser: RunnerParser = {
  runner: 'pytest',
  parse(text) {
    const counts: RunnerCounts = { runner: 'pytest', passed: 0, failed: 0, skipped: 0, todo: 0 };
    let seen = false;
    for (const summary of text.matchAll(SUMMARY)) {
      const parts = summary[1]!;
      if (parts !== 'no tests ran' && !/\d+ (?:passed|failed|errors?|skipped|deselected|xfailed|xpassed)\b/.test(parts)) continue;
      seen = true;
      for (const [, count, kind] of parts.matchAll(PART)) {
        const n = Number(count);
        if (kind === 'passed' || kind === 'xpassed') counts.passed += n;
        else if (kind === 'failed' || kind === 'error' || kind === 'errors') counts.failed += n;
        else if (kind === 'skipped' || kind === 'xfailed' || kind === 'deselected') counts.skipped += n;
      }
    }
    return seen ? counts : undefined;
  },
};
