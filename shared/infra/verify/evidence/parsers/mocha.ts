import type { RunnerCounts, RunnerParser } from './runnerParser.js';

/**
 * mocha's spec (and dot, list, …) reporter epilogue:
 *
 *       2 passing (8ms)
 *       1 pending
 *       1 failing
 *
 * `passing` is always printed, even as `0 passing` when --grep matched nothing. Pending tests
 * (it.skip, it without a body) are skipped. Several runs are added up.
 */
const PASSING = /^[ \t]*(\d+) passing \([^)]*\)[ \t]*$/gm;
const PENDING = /^[ \t]*(\d+) pending[ \t]*$/gm;
const FAILING = /^[ \t]*(\d+) failing[ \t]*$/gm;

export const mochaParser: RunnerParser = {
  runner: 'mocha',
  parse(text) {
    const passing = [...text.matchAll(PASSING)];
    if (passing.length === 0) return undefined;
    const total = (matches: Iterable<RegExpMatchArray>) => [...matches].reduce((sum, match) => sum + Number(match[1]), 0);
    const counts: RunnerCounts = {
      runner: 'mocha',
      passed: total(passing),
      failed: total(text.matchAll(FAILING)),
      skipped: total(text.matchAll(PENDING)),
      todo: 0,
    };
    return counts;
  },
};
