import type { CheckEvidence } from '../evidence/evidence.js';
import { describeTreeChanges, loadManifest, type TreeSnapshot, treeChanges } from '../evidence/treeHash.js';
import { defineGate, type VerdictOf } from './gate.js';

export const STALE = defineGate({
  name: 'stale',
  checks: 'a passing check ran on the tree as it is now, not on one changed since',
  report: 'refuse',
  merge: 'refuse',
});

/**
 * The stale gate: evidence counts only for the tree it ran on. A check whose tree hash (taken
 * before it ran) differs from the tree now — anything tracked or untracked changed after the run
 * started — is `not_run`, whatever it printed. Only checks that exited 0 can be stale passes; a
 * failed check is a failure on any tree. The reason names the files that changed when the run
 * left a manifest.
 */
export async function staleProblem(evidence: CheckEvidence, current: TreeSnapshot): Promise<string | undefined> {
  if (evidence.tree === current.digest) return undefined;
  let changed = '';
  if (evidence.tree_manifest) {
    try {
      const changes = treeChanges(await loadManifest(evidence.tree_manifest), current.files);
      if (changes.length > 0) changed = `: since it ran, ${describeTreeChanges(changes)}`;
    } catch (error) {
      changed = ` (its tree listing ${evidence.tree_manifest} could not be read: ${error instanceof Error ? error.message : String(error)})`;
    }
  }
  return `\`${evidence.command}\` ran on tree ${short(evidence.tree)}, the tree is now ${short(current.digest)}${changed}; it is not_run on this tree`;
}

export async function staleGate(evidence: readonly CheckEvidence[], current: TreeSnapshot): Promise<VerdictOf<typeof STALE>> {
  const passing = evidence.filter((one) => one.outcome === 'exited' && one.exit_code === 0);
  const problems = (await Promise.all(passing.map((one) => staleProblem(one, current)))).filter(
    (problem): problem is string => problem !== undefined,
  );
  if (problems.length > 0) return STALE.verdict(false, problems.join('; '));
  if (passing.length === 0) return STALE.verdict(true, 'no passing check to hold against the tree');
  return STALE.verdict(true, `every passing check ran on the current tree ${short(current.digest)}`);
}

function short(digest: string): string {
  return digest.slice(0, 12);
}
