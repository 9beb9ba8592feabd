import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { TestCounts } from '../../shared/infra/verify/evidence/evidence.js';
import { isJUnitXml, parseJUnitXml } from '../../shared/infra/verify/evidence/junit.js';
import { describeCounts, parseTestCounts } from '../../shared/infra/verify/evidence/testCounts.js';
import { writeFiles } from '../support/gitRepo.js';
import { tempDir } from '../support/tempDir.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(here, '../..');
const output = (name: string) => readFileSync(path.join(here, 'fixtures/runner-output', name), 'utf8');

function counts(text: string): TestCounts {
  return parseTestCounts(text);
}

function expectCounts(
  result: TestCounts,
  expected: { runners: string[]; passed: number; failed: number; skipped: number; todo: number },
): void {
  expect(result).toEqual({ known: true, source: 'output', executed: expected.passed + expected.failed, ...expected });
}

/** Runs a command for its combined output, whatever its exit code. */
function run(command: string, args: string[], cwd: string): { output: string; code: number | null } {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', env: { ...process.env, CI: 'true', FORCE_COLOR: '1' } });
  return { output: `${result.stdout}\n${result.stderr}`, code: result.status };
}

describe('node:test output, from the real runner', () => {
  const files = {
    'calc.test.mjs': [
      "import test from 'node:test';",
      "import assert from 'node:assert';",
      "test('adds', () => assert.equal(1 + 1, 2));",
      "test('fails', () => assert.equal(1 + 1, 3));",
      "test('skipped', { skip: true }, () => {});",
      "test('later', { todo: true }, () => {});",
      "test.describe('group', () => { test.it('inner', () => {}); });",
    ].join('\n'),
  };

  it.each([['tap'], ['spec']])('counts the %s reporter: passes, failures, skips and todos', (reporter) => {
    const dir = tempDir();
    writeFiles(dir, files);
    const { output: text, code } = run(process.execPath, ['--test', `--test-reporter=${reporter}`, 'calc.test.mjs'], dir);
    expect(code).toBe(1);
    expectCounts(counts(text), { runners: ['node:test'], passed: 2, failed: 1, skipped: 1, todo: 1 });
  });

  it('a name pattern matching no test is zero executed, though node exits 0', () => {
    const dir = tempDir();
    writeFiles(dir, files);
    const { output: text, code } = run(process.execPath, ['--test', '--test-name-pattern=no-such-test', 'calc.test.mjs'], dir);
    expect(code).toBe(0);
    const result = counts(text);
    expect(result.known && result.executed).toBe(0);
    expect(result.known && result.skipped).toBe(5);
  });
});

describe('vitest output, from the real runner', () => {
  function project(): string {
    const dir = tempDir();
    writeFiles(dir, {
      'package.json': '{"type":"module"}',
      'a.test.ts': [
        "import { describe, expect, it } from 'vitest';",
        "describe('math', () => {",
        "  it('adds', () => { expect(1 + 1).toBe(2); });",
        "  it('fails', () => { expect(1 + 1).toBe(3); });",
        "  it.skip('skipped', () => {});",
        "  it.todo('later');",
        '});',
      ].join('\n'),
      'b.test.ts': "import { expect, it } from 'vitest';\nit('b', () => { expect(true).toBe(true); });\n",
    });
    // The runner resolves `vitest` from the project: lend it this checkout's.
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    return dir;
  }
  const vitest = path.join(ROOT, 'node_modules/.bin/vitest');

  it('counts a mixed run (colours on), and a filter that matches nothing', () => {
    const dir = project();
    const mixed = run(vitest, ['run'], dir);
    expect(mixed.code).toBe(1);
    expect(mixed.output).toContain('\u001b[');
    expectCounts(counts(mixed.output), { runners: ['vitest'], passed: 2, failed: 1, skipped: 1, todo: 1 });

    const none = run(vitest, ['run', '-t', 'no-such-test'], dir);
    expect(none.code).toBe(0);
    expectCounts(counts(none.output), { runners: ['vitest'], passed: 0, failed: 0, skipped: 5, todo: 0 });
  });

  it('no test files found is zero tests', () => {
    const dir = project();
    const none = run(vitest, ['run', '--passWithNoTests', 'no-such-file'], dir);
    expect(none.code).toBe(0);
    expectCounts(counts(none.output), { runners: ['vitest'], passed: 0, failed: 0, skipped: 0, todo: 0 });
  });
});

describe('output captured from the real runners (pytest 9, cargo 1.95)', () => {
  it('pytest: failed, passed, skipped, xfailed and errors', () => {
    expectCounts(counts(output('pytest-mixed.txt')), { runners: ['pytest'], passed: 1, failed: 2, skipped: 2, todo: 0 });
    expectCounts(counts(output('pytest-quiet.txt')), { runners: ['pytest'], passed: 1, failed: 2, skipped: 2, todo: 0 });
  });

  it('pytest: every test deselected is zero executed', () => {
    expectCounts(counts(output('pytest-deselected.txt')), { runners: ['pytest'], passed: 0, failed: 0, skipped: 5, todo: 0 });
  });

  it('cargo test: unit, integration and doc-test binaries are added up', () => {
    expectCounts(counts(output('cargo-mixed.txt')), { runners: ['cargo test'], passed: 3, failed: 1, skipped: 1, todo: 0 });
    expectCounts(counts(output('cargo-filtered.txt')), { runners: ['cargo test'], passed: 0, failed: 0, skipped: 0, todo: 0 });
  });

  it('JUnit XML written by pytest --junitxml', () => {
    const xml = output('pytest-junit.xml');
    expect(isJUnitXml(xml)).toBe(true);
    expect(parseJUnitXml(xml)).toEqual({ runner: 'junit', passed: 1, failed: 2, skipped: 2, todo: 0 });
    expect(parseTestCounts('no runner output at all', parseJUnitXml(xml))).toMatchObject({ known: true, source: 'junit', executed: 3 });
  });
});

describe('documented output formats (runners not installed here)', () => {
  it('jest: the Tests: line, and every test filtered out', () => {
    expectCounts(counts(output('jest-mixed.txt')), { runners: ['jest'], passed: 3, failed: 1, skipped: 1, todo: 1 });
    expectCounts(counts(output('jest-filtered.txt')), { runners: ['jest'], passed: 0, failed: 0, skipped: 6, todo: 0 });
    expectCounts(counts('No tests found, exiting with code 0\nRun with `--passWithNoTests` to exit with code 0'), {
      runners: ['jest'],
      passed: 0,
      failed: 0,
      skipped: 0,
      todo: 0,
    });
  });

  it('mocha: passing, pending, failing; a grep that matches nothing', () => {
    expectCounts(counts(output('mocha-mixed.txt')), { runners: ['mocha'], passed: 1, failed: 1, skipped: 1, todo: 0 });
    expectCounts(counts(output('mocha-grep-none.txt')), { runners: ['mocha'], passed: 0, failed: 0, skipped: 0, todo: 0 });
  });

  it('go test -v and -json count tests, subtests and their parents', () => {
    expectCounts(counts(output('go-verbose.txt')), { runners: ['go test'], passed: 4, failed: 1, skipped: 1, todo: 0 });
    expectCounts(counts(output('go-json.txt')), { runners: ['go test'], passed: 1, failed: 1, skipped: 1, todo: 0 });
  });

  it('plain go test names no passing test: unknown counts, said so; no package running a test is zero', () => {
    const plain = counts(output('go-plain.txt'));
    expect(plain.known).toBe(false);
    expect(!plain.known && plain.reason).toMatch(/go test: .*without -v or -json.*run it with -v/);
    expectCounts(counts(output('go-run-none.txt')), { runners: ['go test'], passed: 0, failed: 0, skipped: 0, todo: 0 });
  });

  it('plain TAP (tape): top-level test points with SKIP and TODO directives', () => {
    expectCounts(counts(output('tap-tape.txt')), { runners: ['tap'], passed: 1, failed: 1, skipped: 1, todo: 1 });
    expectCounts(counts('TAP version 13\n1..0 # no tests\n'), { runners: ['tap'], passed: 0, failed: 0, skipped: 0, todo: 0 });
  });
});

describe('combining and not guessing', () => {
  it('a check that ran two runners is the sum of both', () => {
    const both = `${output('pytest-quiet.txt')}\n${output('cargo-mixed.txt')}`;
    expectCounts(counts(both), { runners: ['pytest', 'cargo test'], passed: 4, failed: 3, skipped: 3, todo: 0 });
  });

  it('output of no known runner gives unknown counts, with the reason', () => {
    const result = counts('Found 0 errors. Watching for file changes.\nall good\n');
    expect(result).toEqual({ known: false, reason: expect.stringContaining('matches none of the known runners') });
    expect(describeCounts(result)).toMatch(/^tests not counted \(no test counts/);
  });

  it('a type check (tsc) gives unknown counts, not zero', () => {
    const dir = tempDir();
    writeFiles(dir, {
      'a.ts': 'export const a: number = 1;\n',
      'tsconfig.json': '{"compilerOptions":{"strict":true,"noEmit":true},"files":["a.ts"]}',
    });
    const text = execFileSync(path.join(ROOT, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.json'], { cwd: dir, encoding: 'utf8' });
    expect(counts(text).known).toBe(false);
  });
});
