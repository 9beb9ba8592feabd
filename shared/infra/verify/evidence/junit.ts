import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { glob } from 'tinyglobby';
import type { RunnerCounts } from './parsers/runnerParser.js';

/**
 * JUnit XML, which most runners can write (pytest --junitxml, jest-junit, vitest --reporter=junit,
 * go-junit-report, cargo nextest, surefire, gradle). When a check leaves some, its counts beat
 * parsing the console output.
 *
 * Counting is by `<testcase>`: one with a `<failure>` or `<error>` failed, one with `<skipped>`
 * was skipped, any other passed. The suites' summary attributes are not trusted (nested suites
 * repeat them). A file with no testcase is zero tests.
 *
 * Which files: the check's own `junit` globs; without them, the usual places (below). Either way
 * only files written while the check ran count, so an old report never speaks for a new run.
 */
export const DEFAULT_JUNIT_GLOBS = [
  'junit.xml',
  'junit/*.xml',
  'test-results/**/*.xml',
  'reports/junit*.xml',
  'target/surefire-reports/*.xml',
  'target/nextest/**/junit.xml',
  'build/test-results/**/*.xml',
];

const TESTCASE = /<testcase\b(?:[^>"']|"[^"]*"|'[^']*')*?(\/>|>([\s\S]*?)<\/testcase\s*>)/g;

export function parseJUnitXml(xml: string): RunnerCounts {
  const counts: RunnerCounts = { runner: 'junit', passed: 0, failed: 0, skipped: 0, todo: 0 };
  for (const match of xml.matchAll(TESTCASE)) {
    const body = match[2] ?? '';
    if (/<(?:failure|error)\b/.test(body)) counts.failed += 1;
    else if (/<skipped\b/.test(body)) counts.skipped += 1;
    else counts.passed += 1;
  }
  return counts;
}

/** Whether the text is JUnit XML at all (a report, not some other XML the glob found). */
export function isJUnitXml(xml: string): boolean {
  return /<(?:testsuites|testsuite)\b/.test(xml);
}

/**
 * The counts of the JUnit files under `cwd` matching `globs` that were modified at or after
 * `since` (ms), added up; undefined when there are none.
 */
export async function junitCounts(
  cwd: string,
  since: number,
  globs: readonly string[] = DEFAULT_JUNIT_GLOBS,
): Promise<{ counts: RunnerCounts; files: string[] } | undefined> {
  const candidates = await glob([...globs], { cwd, absolute: true, dot: false, ignore: ['**/node_modules/**', '**/.git/**'] });
  const files: string[] = [];
  const counts: RunnerCounts = { runner: 'junit', passed: 0, failed: 0, skipped: 0, todo: 0 };
  // mtime has coarse resolution on some file systems: a second's slack, never more.
  const cutoff = since - 1_000;
  for (const file of candidates.sort()) {
    let xml: string;
    try {
      if (statSync(file).mtimeMs < cutoff) continue;
      xml = readFileSync(file, 'utf8');
    } catch {
      continue; // removed between the glob and the read: not a report of this run
    }
    if (!isJUnitXml(xml)) continue;
    const one = parseJUnitXml(xml);
    counts.passed += one.passed;
    counts.failed += one.failed;
    counts.skipped += one.skipped;
    files.push(path.relative(cwd, file));
  }
  return files.length > 0 ? { counts, files } : undefined;
}
