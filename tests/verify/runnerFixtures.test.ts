import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCheck } from '../../shared/infra/verify/checks/checkRun.js';
import { parseTestCounts } from '../../shared/infra/verify/evidence/testCounts.js';
import { zeroTestsGate } from '../../shared/infra/verify/gates/zeroTests.js';
import { makeRepo } from '../support/gitRepo.js';
import { tempDir } from '../support/tempDir.js';

/** Output captured from real runs of each runner (fixtures/runners/README.md: versions and commands; capture.sh made them). */
const RUNNERS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'runners');

/** A fixture's output, and the exit code the run had (its last line, `# exit N`, which capture.sh added). */
function fixture(name: string): { output: string; exit: number } {
  const text = readFileSync(path.join(RUNNERS, name), 'utf8');
  const match = /\n# exit (\d+)\n$/.exec(text);
  if (!match) throw new Error(`${name} does not end with capture.sh's "# exit N" line`);
  return { output: text.slice(0, match.index + 1), exit: Number(match[1]) };
}

type Counts = [runner: string, passed: number, failed: number, skipped: number, todo: number];

/** Every fixture, with the counts its runner printed (the suites: two passing, one failing, one skipped, one todo where the runner has todo). */
const EXPECTED: Record<string, Counts> = {
  'jest/mixed.txt': ['jest', 2, 1, 1, 1],
  'jest/passing.txt': ['jest', 2, 0, 0, 0],
  'jest/filter-none.txt': ['jest', 0, 0, 2, 0],
  'jest/no-files.txt': ['jest', 0, 0, 0, 0],
  'mocha/mixed.txt': ['mocha', 2, 1, 1, 0],
  'mocha/passing.txt': ['mocha', 2, 0, 0, 0],
  'mocha/grep-none.txt': ['mocha', 0, 0, 0, 0],
  'vitest/mixed.txt': ['vitest', 2, 1, 1, 1],
  'vitest/passing.txt': ['vitest', 2, 0, 0, 0],
  'vitest/filter-none.txt': ['vitest', 0, 0, 2, 0],
  'vitest/no-files.txt': ['vitest', 0, 0, 0, 0],
  'ava/mixed.txt': ['ava', 2, 1, 1, 1],
  'ava/verbose-mixed.txt': ['ava', 2, 1, 1, 1],
  'ava/passing.txt': ['ava', 2, 0, 0, 0],
  'ava/match-none.txt': ['ava', 0, 0, 0, 0],
  'ava/no-tests.txt': ['ava', 0, 0, 0, 0],
  'uvu/mixed.txt': ['uvu', 2, 1, 1, 0],
  'uvu/passing.txt': ['uvu', 2, 0, 0, 0],
  'uvu/node-file.txt': ['uvu', 2, 0, 0, 0],
  'uvu/no-tests.txt': ['uvu', 0, 0, 0, 0],
  'uvu/no-files.txt': ['uvu', 0, 0, 0, 0],
  'node-test/mixed.txt': ['node:test', 2, 1, 1, 1],
  'node-test/spec-mixed.txt': ['node:test', 2, 1, 1, 1],
  'node-test/pattern-none.txt': ['node:test', 0, 0, 5, 0],
  'tap/mixed.txt': ['node-tap', 2, 1, 1, 1],
  'tap/tap-reporter.txt': ['node-tap', 2, 1, 1, 1],
  'tap/passing.txt': ['node-tap', 2, 0, 0, 0],
  'tap/grep-none.txt': ['node-tap', 0, 0, 2, 0],
  'pytest/mixed.txt': ['pytest', 2, 1, 1, 0],
  // pytest counts deselected tests as skipped (parsers/pytest.ts).
  'pytest/passing.txt': ['pytest', 2, 0, 2, 0],
  'pytest/deselected-none.txt': ['pytest', 0, 0, 4, 0],
  'pytest/no-files.txt': ['pytest', 0, 0, 0, 0],
};

describe('test counts of real runs of jest, mocha, vitest, ava, uvu, node:test, node-tap and pytest', () => {
  it.each(Object.entries(EXPECTED))('%s', (name, [runner, passed, failed, skipped, todo]) => {
    expect(parseTestCounts(fixture(name).output)).toEqual({
      known: true,
      source: 'output',
      runners: [runner],
      executed: passed + failed,
      passed,
      failed,
      skipped,
      todo,
    });
  });
});

describe('a run of no test is not a pass, whichever runner', () => {
  // The runs that ran nothing and still exited 0: the zero_tests gate is all that stands between them and a PASS.
  const zeroExit0 = Object.keys(EXPECTED).filter((name) => EXPECTED[name]![1] + EXPECTED[name]![2] === 0 && fixture(name).exit === 0);

  it('the runners that exit 0 on zero tests are the ones expected', () => {
    expect(zeroExit0.sort()).toEqual([
      'jest/filter-none.txt',
      'mocha/grep-none.txt',
      'node-test/pattern-none.txt',
      'tap/grep-none.txt',
      'uvu/no-files.txt',
      'uvu/no-tests.txt',
      'vitest/filter-none.txt',
      'vitest/no-files.txt',
    ]);
  });

  it.each(zeroExit0)('%s, replayed as a check, fails zero_tests', async (name) => {
    const file = path.join(RUNNERS, name);
    // The check prints what the runner printed and exits as it did: the host's whole check pipeline reads it.
    const command = `head -n -1 '${file}'; exit ${fixture(name).exit}`;
    const evidence = await runCheck({ command }, { cwd: makeRepo(), logDir: tempDir() });
    expect(evidence.exit_code).toBe(0);
    const gate = zeroTestsGate([evidence]);
    expect(gate.ok).toBe(false);
    expect(gate.reason).toContain('exited 0 but ran no test');
  });
});
