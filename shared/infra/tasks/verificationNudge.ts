import type { AgentSession, StopCheck } from '../../core/loop/session.js';
import type { ToolLedgerEntry } from '../../core/loop/toolLedger.js';
import { bashResultFields } from '../../core/tool/bashResultData.js';
import { loadDescription } from '../../core/tool/tool.js';
import { commandInput, familyOf, resultsKind } from '../../core/tool/toolFacts.js';
import { isCheckCommand } from '../verify/evidence/checkCommand.js';
import { judgedExitCode } from '../verify/evidence/pipelineCheck.js';
import { treeSnapshot } from '../verify/evidence/treeHash.js';
import { staleProblem } from '../verify/gates/stale.js';
import { zeroTestsProblem } from '../verify/gates/zeroTests.js';
import { isVerificationTask } from './task.js';

/**
 * The verification nudge: ticking tasks off is not verifying them. When the agent is about to
 * end with `minCompleted` (3) or more tasks completed and nothing verified, it is reminded
 * (nudge.md) and goes on. Verified means both:
 * - a verification task (its subject says "verif…", or `metadata.kind` is `verification`) is
 *   completed; and
 * - there is passing evidence newer than the last edit: with the host's check evidence
 *   (CheckRecorder), a check that exited 0, ran tests (or is not a test run) and ran on the tree
 *   as it is now; without it, from the session's ledger, a check command that exited 0 after the
 *   last Edit/Write.
 * At most `maxReminders` (2) reminders per session; after that the agent may end, and a notice
 * says it ended unverified. Compose it with the Stop hooks through chainStopChecks.
 */
export interface VerificationNudgeOptions {
  minCompleted?: number;
  maxReminders?: number;
}

export const NUDGE = loadDescription(import.meta.url, './nudge.md');

export function createVerificationNudge(options: VerificationNudgeOptions = {}): StopCheck {
  const minCompleted = options.minCompleted ?? 3;
  const maxReminders = options.maxReminders ?? 2;
  let reminders = 0;
  return {
    async beforeStop(session: AgentSession) {
      const service = session.toolContext.services.taskList;
      if (!service) return undefined;
      const tasks = await service.store.list();
      const completed = tasks.filter((task) => task.status === 'completed');
      if (completed.length < minCompleted) return undefined;
      const missing: string[] = [];
      if (!completed.some(isVerificationTask)) missing.push('no verification task is completed');
      const evidence = await freshPassingEvidence(session);
      if (!evidence.ok) missing.push(evidence.why);
      if (missing.length === 0) return undefined;
      if (reminders >= maxReminders) {
        session.toolContext.emit({
          type: 'notice',
          level: 'warn',
          message: `verification nudge: ${completed.length} tasks completed and ${missing.join('; ')}; reminded ${reminders} time(s), letting the agent end`,
        });
        return undefined;
      }
      reminders += 1;
      return NUDGE.replace('{completed}', String(completed.length)).replace('{missing}', missing.join('; '));
    },
  };
}

async function freshPassingEvidence(session: AgentSession): Promise<{ ok: true } | { ok: false; why: string }> {
  const recorder = session.toolContext.services.checks;
  if (recorder && recorder.evidence().length > 0) {
    let current;
    try {
      current = await treeSnapshot(session.workspace.root);
    } catch {
      return fromLedger(session.ledger.all()); // no git here: the ledger is all there is
    }
    for (const evidence of [...recorder.evidence()].reverse()) {
      if (
        evidence.outcome === 'exited' &&
        evidence.exit_code === 0 &&
        !zeroTestsProblem(evidence) &&
        !(await staleProblem(evidence, current))
      )
        return { ok: true };
    }
    return { ok: false, why: 'no check passed on the code as it is now (every passing run is older than a later change, or ran no test)' };
  }
  return fromLedger(session.ledger.all());
}

function fromLedger(ledger: readonly ToolLedgerEntry[]): { ok: true } | { ok: false; why: string } {
  const lastEdit = ledger.findLastIndex((entry) => familyOf(entry.tool) === 'edit' && !entry.isError);
  const lastPass = ledger.findLastIndex((entry) => {
    if (resultsKind(entry.tool) !== 'command' || entry.isError) return false;
    const command = commandInput(entry.tool, entry.input);
    return command !== undefined && isCheckCommand(command) && judgedExitCode(command, bashResultFields(entry.data)) === 0;
  });
  if (lastPass < 0) return { ok: false, why: 'no check (tests, type check, build) has passed in this session' };
  if (lastPass < lastEdit) return { ok: false, why: 'files were edited after the last passing check' };
  return { ok: true };
}
