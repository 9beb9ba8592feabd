import type { CheckEvidence } from '../evidence/evidence.js';
import type { TreeSnapshot } from '../evidence/treeHash.js';
import { failedGatesText, type Verdict } from './gate.js';

/**
 * Whether a run may report PASS: only with integration evidence newer than its last merge. Every
 * gate passed; at least one integration check ran; and every integration check exited 0, started
 * after the last merge landed, on the tree as it is now. Anything less is not PASS, and the reason
 * says which check or gate stands in the way.
 */
export interface RunPassInput {
  /** The integration checks' evidence (the host's runs on the merged tree). */
  evidence: readonly CheckEvidence[];
  /** When the last merge into the integration branch finished (ms). */
  lastMergeAt: number;
  /** The integration tree now. */
  currentTree: TreeSnapshot;
  /** The gates on the integration checks (gateIntegration). */
  gates: readonly Verdict[];
}

export function runMayPass(input: RunPassInput): { ok: boolean; reason: string } {
  if (input.evidence.length === 0)
    return { ok: false, reason: 'no integration check ran on the merged tree: a run does not pass on no evidence' };
  const failedGates = failedGatesText(input.gates);
  if (failedGates) return { ok: false, reason: `gates failed: ${failedGates}` };
  const problems: string[] = [];
  for (const one of input.evidence) {
    if (one.started_at <= input.lastMergeAt) {
      problems.push(
        `\`${one.command}\` started at ${new Date(one.started_at).toISOString()}, before the last merge at ${new Date(input.lastMergeAt).toISOString()}`,
      );
    } else if (one.tree !== input.currentTree.digest) {
      problems.push(
        `\`${one.command}\` ran on tree ${one.tree.slice(0, 12)}, not the integration tree ${input.currentTree.digest.slice(0, 12)}`,
      );
    } else if (one.outcome !== 'exited' || one.exit_code !== 0) {
      problems.push(`\`${one.command}\` did not pass (${one.outcome === 'exited' ? `exit ${one.exit_code}` : one.outcome})`);
    }
  }
  if (problems.length > 0) return { ok: false, reason: problems.join('; ') };
  return {
    ok: true,
    reason: `${input.evidence.length} integration check(s) passed on tree ${input.currentTree.digest.slice(0, 12)}, after the last merge`,
  };
}
