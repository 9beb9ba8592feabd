import type { CheckRecord } from '../queue/agentJob.js';
import { checkStatus } from './checkStatus.js';
import type { AssertionConfirmation, CheckEvidence, ClaimedCheck } from './evidence.js';
import { allGatesPass, gateResult, type GateResult } from './gateResult.js';
import { assertionsGate, auditTestChanges, type AuditInput } from './gates/assertions.js';
import { claimsGate } from './gates/claims.js';
import { staleGate } from './gates/stale.js';
import { targetGate } from './gates/target.js';
import { zeroTestsGate } from './gates/zeroTests.js';
import { treeSnapshot, type TreeSnapshot } from './treeHash.js';
import type { GatedCheck, GateReport } from './workerGates.js';

/**
 * The five gates on the integration checks: the host's own runs (checkRun.ts) on the merged
 * tree, judged on the tree as it is now (zero_tests, stale, target), the whole diff from the
 * run's base to the integration head audited (assertions), and, when the Verification agent has
 * reported, its claimed checks held against its own tool log (claims).
 */
export interface IntegrationInput {
  /** The integration checks as the host ran them. */
  evidence: readonly CheckEvidence[];
  /** The integration worktree. */
  worktree: string;
  currentTree?: TreeSnapshot;
  leasedPorts: readonly number[];
  audit: AuditInput;
  confirmations?: readonly AssertionConfirmation[];
  /** The Verification agent's `checks` and its own tool log, when it has reported. */
  verification?: { claims: readonly ClaimedCheck[]; commands: readonly CheckRecord[] };
}

export async function gateIntegration(input: IntegrationInput): Promise<GateReport> {
  const current = input.currentTree ?? (await treeSnapshot(input.worktree));
  const target = { worktree: input.worktree, leasedPorts: input.leasedPorts };
  const checks: GatedCheck[] = [];
  for (const evidence of input.evidence) {
    const { status, reason } = await checkStatus(evidence, current, target);
    checks.push({ command: evidence.command, exit_code: evidence.exit_code, status, reason, tests_executed: evidence.counts.known ? evidence.counts.executed : null, evidence });
  }
  const claims = input.verification
    ? claimsGate(input.verification.claims, input.verification.commands, 'the Verification agent')
    : { gate: gateResult('claims', true, 'no agent claims to hold against a tool log: the integration checks were run by the host'), dropped: [] };
  const flags = await auditTestChanges(input.audit);
  const gates: GateResult[] = [
    zeroTestsGate(input.evidence),
    await staleGate(input.evidence, current),
    targetGate(input.evidence, target),
    assertionsGate(flags, input.confirmations),
    claims.gate,
  ];
  return { ok: allGatesPass(gates), gates, checks, dropped: claims.dropped, flags };
}
