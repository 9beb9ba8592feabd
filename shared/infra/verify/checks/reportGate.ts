import type { AgentSession, StopCheck } from '../../../core/loop/session.js';
import { loadDescription } from '../../../core/tool/tool.js';
import type { ClaimedCheck } from '../evidence/evidence.js';
import { treeSnapshot, untrackedInV2 } from '../evidence/treeHash.js';
import { blockingGates } from '../gates/blockingGates.js';
import { commandsFromLedger } from '../gates/claims.js';
import { type GateReport, gateWorkerReport } from '../gates/workerGates.js';

export const REFUSAL = loadDescription(import.meta.url, './reportRefused.md');

export interface ReportGateOptions {
  /** The claimed checks inside a Report input (worker `claimed_checks`, verification `checks`). */
  claimsOf: (report: unknown) => readonly ClaimedCheck[];
  /** The commit the agent's work is judged against for weakened tests. */
  base: string;
  leasedPorts: readonly number[];
  /** Reports refused before the agent may end anyway (the job's gates then say what failed). */
  maxRefusals?: number;
  who: string;
  /** The checks it must have run on the tree as it is (a Worker's subtask checks): the `required` gate. */
  required?: readonly string[];
  /**
   * Whether a Report owns up to failure (a Worker's non-empty `unresolved`): it is not sent back
   * for required checks it could not pass, and its task fails on its own word.
   */
  admitsFailure?: (report: unknown) => boolean;
  /**
   * The host's watch's `git status` of the worktree from its look before this Report, taken just
   * before the gates in the same stop (worktreeWatch.ts `lastStatus`): the gates' tree is hashed
   * from it instead of asking git again. Read only here, in the stop: a later judgement (after a
   * SessionEnd hook, judgeReport) asks git.
   */
  watchStatus?: () => string | undefined;
}

/**
 * Holds a Report to the evidence before the agent may end with it: the claimed checks must be in
 * its own tool log with the same exit codes (claims), ran on the tree as it is now (stale), ran
 * tests (zero_tests) against servers of this worktree (target), and the checks its task requires
 * must have passed after its last change (required), claimed or not. A report that fails a gate
 * that refuses reports (blockingGates.ts asks each gate) goes back to the agent with the reasons, so
 * it runs the checks instead of describing them.
 */
export function createReportGate(options: ReportGateOptions): StopCheck & { last(): GateReport | undefined } {
  const maxRefusals = options.maxRefusals ?? 2;
  let refusals = 0;
  let last: GateReport | undefined;
  return {
    last: () => last,
    async beforeStop(session: AgentSession, info) {
      if (info.reason !== 'report' || info.report === undefined) return undefined;
      last = await gateSession(session, options, info.report, options.watchStatus?.());
      const failed = blockingGates(last.gates, { at: 'report', admitsFailure: options.admitsFailure?.(info.report) === true });
      if (failed.length === 0 || refusals >= maxRefusals) return undefined;
      refusals += 1;
      session.toolContext.emit({
        type: 'notice',
        level: 'warn',
        message: `Report refused by the gates (${failed.map((gate) => gate.name).join(', ')}): ${failed.map((gate) => gate.reason).join('; ')}`,
      });
      return REFUSAL.replace('{reasons}', failed.map((gate) => `- ${gate.name}: ${gate.reason}`).join('\n'));
    },
  };
}

/** The gates on a session's Report, from its own ledger and the host's evidence of its checks. */
export async function gateSession(
  session: AgentSession,
  options: Omit<ReportGateOptions, 'maxRefusals' | 'admitsFailure'>,
  report: unknown,
  /** The watch's status of the tree a moment ago (ReportGateOptions.watchStatus), when there is one. */
  watchStatus?: string,
): Promise<GateReport> {
  const root = session.workspace.root;
  return gateWorkerReport({
    // Not awaited here: the gates hash it beside their test-diff audit.
    ...(watchStatus !== undefined ? { currentTree: treeSnapshot(root, { statusV2: watchStatus }) } : {}),
    claims: options.claimsOf(report),
    commands: commandsFromLedger(session.ledger.all()),
    evidence: session.toolContext.services.checks?.evidence() ?? [],
    worktree: session.workspace.root,
    leasedPorts: options.leasedPorts,
    audit: {
      repo: session.workspace.root,
      base: options.base,
      ...(watchStatus !== undefined ? { untracked: untrackedInV2(watchStatus), status: watchStatus } : {}),
    },
    who: options.who,
    required: options.required,
  });
}
