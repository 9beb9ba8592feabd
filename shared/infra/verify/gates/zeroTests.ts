import type { CheckEvidence } from '../evidence/evidence.js';
import { describeCounts } from '../evidence/testCounts.js';
import { defineGate, type VerdictOf } from './gate.js';

export const ZERO_TESTS = defineGate({
  name: 'zero_tests',
  checks: 'a check that exited 0 ran tests, and its runner reports none failed',
  report: 'refuse',
  merge: 'refuse',
});

/**
 * The zero_tests gate: exit code 0 is not a pass when the runner ran no test. A check that exited
 * 0 fails this gate when its counts are known and
 * - no test executed (none matched a filter, none collected, all skipped or todo), or
 * - its runner reports failed tests anyway (a runner told to ignore failures).
 * Counts that are unknown (no known runner's output: a type check, a build, an unknown runner)
 * do not fail it, and the reason says they were not counted. Checks that did not exit 0 are
 * failures already and are not this gate's business.
 */
export function zeroTestsProblem(evidence: CheckEvidence): string | undefined {
  if (evidence.outcome !== 'exited' || evidence.exit_code !== 0 || !evidence.counts.known) return undefined;
  const counts = evidence.counts;
  if (counts.executed === 0) {
    return `\`${evidence.command}\` exited 0 but ran no test: ${describeCounts(counts)}, which is not a pass`;
  }
  if (counts.failed > 0)
    return `\`${evidence.command}\` exited 0 but its runner reports ${counts.failed} failed test(s): ${describeCounts(counts)}`;
  return undefined;
}

export function zeroTestsGate(evidence: readonly CheckEvidence[]): VerdictOf<typeof ZERO_TESTS> {
  const passing = evidence.filter((one) => one.outcome === 'exited' && one.exit_code === 0);
  const problems = passing.map(zeroTestsProblem).filter((problem): problem is string => problem !== undefined);
  if (problems.length > 0) return ZERO_TESTS.verdict(false, problems.join('; '));
  if (passing.length === 0) return ZERO_TESTS.verdict(true, 'no check exited 0, so none claims tests passed');
  return ZERO_TESTS.verdict(true, passing.map((one) => `\`${one.command}\`: ${describeCounts(one.counts)}`).join('; '));
}
