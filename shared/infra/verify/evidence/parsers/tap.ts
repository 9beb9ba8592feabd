import type { RunnerCounts, RunnerParser } from './runnerParser.js';

/**
 * Plain TAP (tap, tape, mocha's TAP reporter, anything else that speaks it), used only when no
 * specific runner matched. Output counts as TAP when it has a `TAP version N` line or a plan
 * (`1..N`). The test points at the outermost indentation are counted (nested ones are subtests of
 * those): `ok` passes, `not ok` fails, `# SKIP` skips and `# TODO` is todo (a failing todo test
 * is not a failure, by the TAP spec). A plan of `1..0` with no test points is zero tests.
 */
const POINT = /^([ \t]*)(not ok|ok)\b(.*)$/gm;
const MARKER = /^(?:TAP version \d+|[ \t]*1\.\.\d+)[ \t]*(?:#.*)?$/m;

export const tapParser: RunnerParser = {
  runner: 'tap',
  generic: true,
  parse(text) {
    if (!MARKER.test(text)) return undefined;
    const points = [...text.matchAll(POINT)];
    const outermost = Math.min(...points.map((point) => point[1]!.length));
    const counts: RunnerCounts = { runner: 'tap', passed: 0, failed: 0, skipped: 0, todo: 0 };
    for (const [, indent, status, rest] of points) {
      if (indent!.length !== outermost) continue;
      const directive = /#\s*(SKIP|TODO)\b/i.exec(rest!)?.[1]?.toUpperCase();
      if (directive === 'SKIP') counts.skipped += 1;
      else if (directive === 'TODO') counts.todo += 1;
      else if (status === 'ok') counts.passed += 1;
      else counts.failed += 1;
    }
    return counts;
  },
};
