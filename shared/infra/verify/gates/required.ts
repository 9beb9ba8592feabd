import type { CheckEvidence } from '../evidence/evidence.js';
import { latestEvidence } from '../evidence/latestEvidence.js';
import { describeCounts } from '../evidence/testCounts.js';
import type { TreeSnapshot } from '../evidence/treeHash.js';
import { defineGate, type VerdictOf } from './gate.js';
import { staleProblem } from './stale.js';
import { zeroTestsProblem } from './zeroTests.js';

/** A Report that owns up to failure is not sent back for it: its task fails on its own word, unmerged. */
export const REQUIRED = defineGate({
  name: 'required',
  checks: "every check a Worker's subtask requires passed in its session, on the tree as it is now, whatever it claims",
  report: 'refuse_unless_admitted',
  merge: 'refuse',
});

/**
 * The required gate (Worker reports): a worker that claims nothing must not pass for it. Each check
 * its subtask names (the plan's `checks`, else the run's integration checks) must have run in its
 * own session, as the host recorded it (CheckRecorder), and its LATEST run must
 * - have exited 0 (not failed, timed out, killed or refused),
 * - have run on the tree as it is now: after the worker's last change (stale.ts), and
 * - have executed tests, when its runner's counts are known (zeroTests.ts: none matched, all
 *   skipped, or failures its runner reported while exiting 0).
 * Whatever the Report claims. The reason names each required check that is missing and why.
 */
export async function requiredGate(
  required: readonly string[],
  evidence: readonly CheckEvidence[],
  current: TreeSnapshot,
  who: string,
): Promise<VerdictOf<typeof REQUIRED>> {
  if (required.length === 0) return REQUIRED.verdict(true, `no checks are required of ${who}`);
  const problems: string[] = [];
  const passed: string[] = [];
  for (const command of required) {
    const latest = latestEvidence(evidence, command);
    const problem = latest ? await problemOf(latest, current) : 'never ran in its session';
    if (problem) problems.push(`required check \`${command}\` ${problem}`);
    else passed.push(`\`${command}\`: ${describeCounts(latest!.counts)}`);
  }
  if (problems.length > 0) return REQUIRED.verdict(false, `${who}: ${problems.join('; ')}`);
  return REQUIRED.verdict(true, `every required check passed on the current tree: ${passed.join('; ')}`);
}

async function problemOf(latest: CheckEvidence, current: TreeSnapshot): Promise<string | undefined> {
  if (latest.outcome !== 'exited') {
    const how = latest.outcome === 'killed' ? `was killed by ${latest.signal ?? 'a signal'}` : latest.outcome.replace('_', ' ');
    return `${how} in its latest run: it has no result`;
  }
  if (latest.exit_code !== 0) return `exited ${latest.exit_code} in its latest run`;
  const stale = await staleProblem(latest, current);
  if (stale) return `last ran before the last change to the tree (${stale.replace(/^`[^`]*` /, '')})`;
  const zero = zeroTestsProblem(latest);
  if (zero) return `did not pass: ${zero}`;
  return undefined;
}
