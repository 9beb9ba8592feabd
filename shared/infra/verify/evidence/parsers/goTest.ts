import type { RunnerCounts, RunnerParser } from './runnerParser.js';

/**
 * `go test`, in its three forms:
 * - `-json`: one event per line; each `"Action":"pass"|"fail"|"skip"` with a `"Test"` is one test.
 * - `-v`: `--- PASS: TestX (0.00s)`, `--- FAIL: …`, `--- SKIP: …`, subtests indented the same way.
 * - plain: one line per package, `ok  pkg 0.01s`, `FAIL pkg 0.01s`, `ok  pkg 0.01s [no tests to run]`,
 *   `?   pkg [no test files]`. It names no passing test, so its counts are unknown (said so),
 *   except when no package ran a test at all: that is zero tests.
 * Subtests are counted as tests, and so are their parents.
 */
const JSON_EVENT = /^\{.*"Action":"(pass|fail|skip)".*"Test":".*\}[ \t]*$/gm;
const VERBOSE = /^[ \t]*--- (PASS|FAIL|SKIP): \S+/gm;
const PACKAGE = /^(ok|FAIL|\?)[ \t]+\S+[ \t]+(.*)$/gm;

export const goTestParser: RunnerParser = {
  runner: 'go test',
  parse(text) {
    const counts: RunnerCounts = { runner: 'go test', passed: 0, failed: 0, skipped: 0, todo: 0 };
    const events = [...text.matchAll(JSON_EVENT)];
    const verbose = events.length > 0 ? events : [...text.matchAll(VERBOSE)];
    for (const [, action] of verbose) {
      const kind = action!.toLowerCase();
      if (kind === 'pass') counts.passed += 1;
      else if (kind === 'fail') counts.failed += 1;
      else counts.skipped += 1;
    }
    const packages = [...text.matchAll(PACKAGE)].filter((line) =>
      /\d+(?:\.\d+)?s\b|\[no test files\]|\[build failed\]|\[setup failed\]/.test(line[2]!),
    );
    // With -v the per-test lines are only printed for tests that ran, and the package lines still follow.
    if (events.length > 0 || counts.passed + counts.failed + counts.skipped > 0) return counts;
    if (packages.length === 0) return undefined;
    const ranNothing = packages.every((line) => line[1] === '?' || /\[no tests to run\]/.test(line[2]!));
    if (ranNothing) return counts;
    return {
      runner: 'go test',
      unknown: 'go test without -v or -json names no passing test, so its tests were not counted; run it with -v (or -json) to count them',
    };
  },
};
