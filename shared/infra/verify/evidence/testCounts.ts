import { stripVTControlCharacters } from 'node:util';
import type { KnownTestCounts, TestCounts } from './evidence.js';
import { avaParser } from './parsers/ava.js';
import { cargoTestParser } from './parsers/cargoTest.js';
import { goTestParser } from './parsers/goTest.js';
import { jestParser } from './parsers/jest.js';
import { mochaParser } from './parsers/mocha.js';
import { nodeTapParser } from './parsers/nodeTap.js';
import { nodeTestParser } from './parsers/nodeTest.js';
import { pytestParser } from './parsers/pytest.js';
import type { RunnerCounts, RunnerParser, RunnerWithoutCounts } from './parsers/runnerParser.js';
import { tapParser } from './parsers/tap.js';
import { uvuParser } from './parsers/uvu.js';
import { vitestParser } from './parsers/vitest.js';

/** Specific runners first; their formats do not overlap, so a check that ran several is summed. */
export const RUNNER_PARSERS: readonly RunnerParser[] = [
  vitestParser,
  jestParser,
  mochaParser,
  avaParser,
  uvuParser,
  nodeTapParser,
  nodeTestParser,
  pytestParser,
  goTestParser,
  cargoTestParser,
  tapParser,
];

const KNOWN_RUNNERS = 'vitest, jest, mocha, ava, uvu, node-tap, node:test, TAP, pytest, go test, cargo test';

/**
 * The test counts of a check, from JUnit XML when the check wrote some (structured, so it wins),
 * else from the output. Output no parser recognises gives unknown counts, said as such: never
 * zero, never a guess.
 */
export function parseTestCounts(output: string, junit?: RunnerCounts): TestCounts {
  if (junit) return known([junit], 'junit');
  const text = stripVTControlCharacters(output).replace(/\r\n?/g, '\n');
  const specific = RUNNER_PARSERS.filter((parser) => !parser.generic).map((parser) => parser.parse(text));
  let found = specific.filter((result): result is RunnerCounts | RunnerWithoutCounts => result !== undefined);
  if (found.length === 0) {
    found = RUNNER_PARSERS.filter((parser) => parser.generic)
      .map((parser) => parser.parse(text))
      .filter((result): result is RunnerCounts | RunnerWithoutCounts => result !== undefined);
  }
  const counted = found.filter((result): result is RunnerCounts => !('unknown' in result));
  const uncounted = found.filter((result): result is RunnerWithoutCounts => 'unknown' in result);
  if (uncounted.length > 0) {
    // Part of the run cannot be counted: a total would understate it, so none is given.
    return { known: false, reason: uncounted.map((result) => `${result.runner}: ${result.unknown}`).join('; ') };
  }
  if (counted.length === 0) {
    return {
      known: false,
      reason: `no test counts: the output matches none of the known runners (${KNOWN_RUNNERS}) and no JUnit XML was found`,
    };
  }
  return known(counted, 'output');
}

function known(results: RunnerCounts[], source: KnownTestCounts['source']): KnownTestCounts {
  const sum = (key: 'passed' | 'failed' | 'skipped' | 'todo') => results.reduce((total, result) => total + result[key], 0);
  const passed = sum('passed');
  const failed = sum('failed');
  return {
    known: true,
    source,
    runners: [...new Set(results.map((result) => result.runner))],
    executed: passed + failed,
    passed,
    failed,
    skipped: sum('skipped'),
    todo: sum('todo'),
  };
}

/** `12 executed (11 passed, 1 failed, 2 skipped; vitest)` or the reason the counts are unknown. */
export function describeCounts(counts: TestCounts): string {
  if (!counts.known) return `tests not counted (${counts.reason})`;
  const extra = [counts.skipped > 0 ? `${counts.skipped} skipped` : '', counts.todo > 0 ? `${counts.todo} todo` : ''].filter(Boolean);
  const parts = [`${counts.passed} passed`, `${counts.failed} failed`, ...extra].join(', ');
  return `${counts.executed} executed (${parts}; ${counts.runners.join(' + ')}${counts.source === 'junit' ? ' JUnit XML' : ''})`;
}
