import type { CheckEvidence } from '../evidence/evidence.js';
import { type GateResult, gateResult } from '../evidence/gateResult.js';
import { describeTreeChanges, loadManifest, type TreeSnapshot, treeChanges } from '../evidence/treeHash.js';

/**
 * Gate 2, stale: evidence counts only for the tree it ran on. A check whose tree hash (taken
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

export async function staleGate(evidence: readonly CheckEvidence[], current: TreeSnapshot): Promise<GateResult> {
  const passing = evidence.filter((one) => one.outcome === 'exited' && one.exit_code === 0);
  const problems = (await Promise.all(passing.map((one) => staleProblem(one, current)))).filter(
    (problem): problem is string => problem !== undefined,
  );
  if (problems.length > 0) return gateResult('stale', false, problems.join('; '));
  if (passing.length === 0) return gateResult('stale', true, 'no passing check to hold against the tree');
  return gateResult('stale', true, `every passing check ran on the current tree ${short(current.digest)}`);
}

function short(digest: string): string {
  return digest.slice(0, 12);
}
