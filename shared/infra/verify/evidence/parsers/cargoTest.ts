import type { RunnerCounts, RunnerParser } from './runnerParser.js';

/**
 * `cargo test` prints one result line per test binary (unit tests, each integration test file,
 * doc-tests); they are added up:
 *
 *     test result: FAILED. 1 passed; 1 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.19s
 *
 * Ignored tests are skipped; a filter that matches nothing gives `0 passed; … 3 filtered out`.
 * Benchmarks (`measured`) are not tests.
 */
const RESULT = /^test result: (?:ok|FAILED)\. (\d+) passed; (\d+) failed; (\d+) ignored; \d+ measured; \d+ filtered out/gm;

export const cargoTestParser: RunnerParser = {
  runner: 'cargo test',
  parse(text) {
    const results = [...text.matchAll(RESULT)];
    if (results.length === 0) return undefined;
    const counts: RunnerCounts = { runner: 'cargo test', passed: 0, failed: 0, skipped: 0, todo: 0 };
    for (const [, passed, failed, ignored] of results) {
      counts.passed += Number(passed);
      counts.failed += Number(failed);
      counts.skipped += Number(ignored);
    }
    return counts;
  },
};
