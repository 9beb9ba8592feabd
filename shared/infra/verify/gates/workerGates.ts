import { settled } from '../../../core/runtime/settled.js';
import { isCheckCommand } from '../evidence/checkCommand.js';
import type { AssertionConfirmation, AssertionFlag, CheckEvidence, CheckRecord, ClaimedCheck } from '../evidence/evidence.js';
import { latestEvidence } from '../evidence/latestEvidence.js';
import { type TreeSnapshot, treeSnapshot } from '../evidence/treeHash.js';
import { type AuditInput, assertionsGate, auditTestChanges } from './assertions.js';
import { type CheckStatus, checkStatus } from './checkStatus.js';
import { claimsGate, type DroppedClaim } from './claims.js';
import { allGatesPass } from './gate.js';
import type { GateResult } from './gateList.js';
import { requiredGate } from './required.js';
import { STALE, staleGate } from './stale.js';
import { targetGate } from './target.js';
import { zeroTestsGate } from './zeroTests.js';

/**
 * The gates on one Worker report (and, with its `checks` as the claims, on a Verification
 * report). What survives is the claims backed by the agent's own tool log (claims), each with the
 * host's evidence of that run judged on the worktree as it is now (zero_tests, stale, target),
 * and the test diff audited (assertions). A claim without recorded evidence is `not_run`: the
 * host knows its exit code but not its tree or its counts. A Worker's report is also held to the
 * checks its subtask requires, whatever it claims (required): claiming nothing passes nothing.
 */
export interface GatedCheck {
  command: string;
  exit_code: number | null;
  status: CheckStatus;
  reason: string;
  tests_executed: number | null;
  evidence?: CheckEvidence;
}

export interface GateReport {
  ok: boolean;
  /** In gate order (gateList.ts); `required` only when checks were required. */
  gates: GateResult[];
  checks: GatedCheck[];
  dropped: DroppedClaim[];
  flags: AssertionFlag[];
}

/** What every run of the gates judges the checks on: the host's evidence, the tree now, the diff. */
export interface GateTreeInput {
  /** The host's evidence of its check runs (CheckRecorder.evidence(), or checkRun for the integration checks). */
  evidence: readonly CheckEvidence[];
  /** The worktree; the servers its checks talked to must run from inside it. */
  worktree: string;
  /** The worktree's tree now; hashed from `worktree` when absent. */
  currentTree?: TreeSnapshot;
  leasedPorts: readonly number[];
  /** The diff audited for weakened tests: base to head (head absent: the worktree as it is). */
  audit: AuditInput;
  confirmations?: readonly AssertionConfirmation[];
}

export interface WorkerReportInput extends Omit<GateTreeInput, 'currentTree'> {
  /** The worktree's tree now, or on its way (hashed beside the test diff's audit); hashed from `worktree` when absent. */
  currentTree?: TreeSnapshot | Promise<TreeSnapshot>;
  /** What the agent says it ran: worker `claimed_checks`, or verification `checks`. */
  claims: readonly ClaimedCheck[];
  /** Its own tool log: the job result's `commands` (or commandsFromLedger of its session). */
  commands: readonly CheckRecord[];
  /** Who made the claims, for the reasons (`worker t1`). */
  who?: string;
  /**
   * The checks the agent must have run on the tree as it is (a Worker: its subtask's `checks`, else
   * the run's integration checks): with it, the report gets the `required` gate too.
   */
  required?: readonly string[];
}

/** A check judged on its evidence (checkStatus) as the report shows it. */
export async function gatedCheck(
  evidence: CheckEvidence,
  current: TreeSnapshot,
  target: { worktree: string; leasedPorts: readonly number[] },
): Promise<GatedCheck> {
  const { status, reason } = await checkStatus(evidence, current, target);
  return {
    command: evidence.command,
    exit_code: evidence.exit_code,
    status,
    reason,
    tests_executed: evidence.counts.known ? evidence.counts.executed : null,
    evidence,
  };
}

export async function gateWorkerReport(input: WorkerReportInput): Promise<GateReport> {
  // Independent reads of the same tree, asked at once (a worker's Report waits on both): its hash, and the test diff's audit.
  const [current, flags] = await settled([input.currentTree ?? treeSnapshot(input.worktree), auditTestChanges(input.audit)]);
  const target = { worktree: input.worktree, leasedPorts: input.leasedPorts };
  const claims = claimsGate(input.claims, input.commands, input.who ?? 'the agent');

  const backing: CheckEvidence[] = [];
  const checks: GatedCheck[] = [];
  for (const claim of claims.kept) {
    const evidence = latestEvidence(input.evidence, claim.command);
    if (!evidence && !isCheckCommand(claim.command)) {
      const passed = claim.exit_code === 0;
      checks.push({
        command: claim.command,
        exit_code: claim.exit_code,
        status: passed ? 'passed' : 'failed',
        reason: 'not a test or build command: held to the tool log only',
        tests_executed: null,
      });
      continue;
    }
    if (!evidence) {
      checks.push({
        command: claim.command,
        exit_code: claim.exit_code,
        status: 'not_run',
        reason: `no evidence of \`${claim.command}\` was recorded (tree, counts): it cannot count as run on this tree`,
        tests_executed: null,
      });
      continue;
    }
    backing.push(evidence);
    checks.push({ ...(await gatedCheck(evidence, current, target)), command: claim.command });
  }
  // A claimed test or build run must have evidence on this tree. Other commands an agent cites (an
  // ad-hoc probe, a grep) are not recorded as evidence: they are held to the tool log alone (claims).
  const unbacked = checks.filter((check) => check.evidence === undefined && check.exit_code === 0 && isCheckCommand(check.command));

  const onTree = await staleGate(backing, current);
  // A claimed pass with no recorded tree is as good as one on another tree: not run on this one.
  const stale =
    unbacked.length === 0
      ? onTree
      : STALE.verdict(false, [...(onTree.ok ? [] : [onTree.reason]), ...unbacked.map((check) => check.reason)].join('; '));
  const gates: GateResult[] = [
    zeroTestsGate(backing),
    stale,
    targetGate(backing, target),
    assertionsGate(flags, input.confirmations),
    claims.gate,
  ];
  if (input.required) gates.push(await requiredGate(input.required, input.evidence, current, input.who ?? 'the agent'));
  return { ok: allGatesPass(gates), gates, checks, dropped: claims.dropped, flags };
}
