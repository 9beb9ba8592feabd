import type { CheckEvidence } from '../evidence/evidence.js';
import type { TreeSnapshot } from '../evidence/treeHash.js';
import { staleProblem } from './stale.js';
import { type TargetContext, targetProblems } from './target.js';
import { zeroTestsProblem } from './zeroTests.js';

/**
 * What one piece of evidence is worth on the tree as it is now:
 * - `passed`: it exited 0 on this very tree, its tests ran (or are not counted, said so), and any
 *   server it talked to runs from this worktree on a leased port;
 * - `failed`: it ran to an exit code other than 0 (or its runner counted failures);
 * - `not_run`: it ran on another tree (stale), ran no test, talked to the wrong server, or never
 *   finished (timed out, aborted, refused): there is no result for this tree.
 */
export type CheckStatus = 'passed' | 'failed' | 'not_run';

export interface StatusOfCheck {
  status: CheckStatus;
  reason: string;
}

export async function checkStatus(evidence: CheckEvidence, current: TreeSnapshot, target: TargetContext): Promise<StatusOfCheck> {
  if (evidence.outcome !== 'exited') {
    const how = evidence.outcome === 'killed' ? `was killed by ${evidence.signal ?? 'a signal'}` : evidence.outcome.replace('_', ' ');
    return { status: 'not_run', reason: `\`${evidence.command}\` ${how}: it has no result` };
  }
  if (evidence.exit_code !== 0) return { status: 'failed', reason: `\`${evidence.command}\` exited ${evidence.exit_code}` };
  const stale = await staleProblem(evidence, current);
  if (stale) return { status: 'not_run', reason: stale };
  const zero = zeroTestsProblem(evidence);
  if (zero) return { status: evidence.counts.known && evidence.counts.failed > 0 ? 'failed' : 'not_run', reason: zero };
  const wrongTarget = targetProblems(evidence, target);
  if (wrongTarget.length > 0) return { status: 'not_run', reason: wrongTarget.join('; ') };
  return { status: 'passed', reason: `\`${evidence.command}\` exited 0 on the current tree` };
}
