import type { AssertionFlag, CheckEvidence, CheckRecord, ClaimedCheck } from '../evidence/evidence.js';
import { type TreeSnapshot, treeSnapshot } from '../evidence/treeHash.js';
import { assertionsGate, auditTestChanges } from './assertions.js';
import { CLAIMS, claimsGate } from './claims.js';
import { allGatesPass } from './gate.js';
import type { GateResult } from './gateList.js';
import { staleGate } from './stale.js';
import { targetGate } from './target.js';
import { type GatedCheck, type GateReport, type GateTreeInput, gatedCheck } from './workerGates.js';
import { zeroTestsGate } from './zeroTests.js';

/**
 * The gates on the integration checks, all but `required` (no subtask requires them): the host's
 * own runs (checkRun.ts) on the merged tree, judged on the tree as it is now (zero_tests, stale,
 * target), the whole diff from the run's base to the integration head audited (assertions), and,
 * when the Verification agent has reported, its claimed checks held against its own tool log
 * (claims).
 */
export interface IntegrationInput extends GateTreeInput {
  /** The Verification agent's `checks` and its own tool log, when it has reported. */
  verification?: { claims: readonly ClaimedCheck[]; commands: readonly CheckRecord[] };
  /**
   * The flags of `audit`'s diff when the caller audited it already (verifyPhase shows them to the
   * Verification agent first): the gate then judges the very flags the agent confirmed, and the
   * diff is not audited twice.
   */
  flags?: readonly AssertionFlag[];
}

export async function gateIntegration(input: IntegrationInput): Promise<GateReport> {
  const current = input.currentTree ?? (await treeSnapshot(input.worktree));
  const target = { worktree: input.worktree, leasedPorts: input.leasedPorts };
  const checks: GatedCheck[] = [];
  for (const evidence of input.evidence) checks.push(await gatedCheck(evidence, current, target));
  const claims = input.verification
    ? claimsGate(input.verification.claims, input.verification.commands, 'the Verification agent')
    : {
        gate: CLAIMS.verdict(true, 'no agent claims to hold against a tool log: the integration checks were run by the host'),
        dropped: [],
      };
  const flags = input.flags ? [...input.flags] : await auditTestChanges(input.audit);
  const [zeroTests, stale, targetVerdict] = await gateMergedTree(input.evidence, current, target);
  const gates: GateResult[] = [zeroTests, stale, targetVerdict, assertionsGate(flags, input.confirmations), claims.gate];
  return { ok: allGatesPass(gates), gates, checks, dropped: claims.dropped, flags };
}

/**
 * The gates that judge the integration checks on the merged tree alone, after each merge, before
 * the Verification agent has seen anything: zero_tests, stale and target.
 */
export async function gateMergedTree(
  evidence: readonly CheckEvidence[],
  current: TreeSnapshot,
  target: { worktree: string; leasedPorts: readonly number[] },
): Promise<[GateResult, GateResult, GateResult]> {
  return [zeroTestsGate(evidence), await staleGate(evidence, current), targetGate(evidence, target)];
}
