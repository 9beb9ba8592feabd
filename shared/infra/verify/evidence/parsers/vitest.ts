import type { RunnerCounts, RunnerParser } from './runnerParser.js';

/**
 * vitest's summary, one per run:
 *
 *      Test Files  1 failed | 1 passed (2)
 *           Tests  1 failed | 2 passed | 1 skipped | 1 todo (5)
 *
 * (no colon after `Tests`: jest writes `Tests:`). `No test files found, exiting with code N` is
 * a run of zero tests. Several summaries (workspaces, several invocations) are added up.
 */
const SUMMARY = /^[ \t]*Tests[ \t]{2,}(.+?)[ \t]*\((\d+)\)[ \t]*$/gm;
const PART = /(\d+) (passed|failed|skipped|todo|pending|expected fail)/g;
const NO_FILES = /^No test files found, exiting with code \d+/m;

export const vitestParser: RunnerParser = {
  runner: 'vitest',
  parse(text) {
    const counts: RunnerCounts = { runner: 'vitest', passed: 0, failed: 0, skipped: 0, todo: 0 };
    let seen = false;
    for (const summary of text.matchAll(SUMMARY)) {
      const parts = summary[1]!;
      if (!/\d+ (?:passed|failed|skipped|todo)/.test(parts)) continue;
      seen = true;
      for (const [, count, kind] of parts.matchAll(PART)) {
        const n = Number(count);
        if (kind === 'passed' || kind === 'expected fail') counts.passed += n;
        else if (kind === 'failed') counts.failed += n;
        else if (kind === 'todo') counts.todo += n;
        else counts.skipped += n;
      }
    }
    if (!seen && NO_FILES.test(text)) seen = true;
    return seen ? counts : undefined;
  },
};
