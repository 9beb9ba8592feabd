import type { RunEventInput } from '../../../core/events/runEvent.js';
import type { CheckEvidence } from './evidence.js';
import type { GateResult } from './gateResult.js';

/**
 * Evidence and gate verdicts as the run events the board and the run's JSON are built from
 * (`check`, `gate`): the coordinator records these for every Worker report and for the
 * integration checks.
 */
export function checkRunEvent(evidence: CheckEvidence, taskId?: string, sandbox?: 'bwrap' | 'none'): RunEventInput {
  return {
    type: 'check',
    command: evidence.command,
    exit_code: evidence.exit_code,
    tests_executed: evidence.counts.known ? evidence.counts.executed : null,
    tree: evidence.tree,
    log: evidence.log,
    ...(taskId !== undefined ? { task_id: taskId } : {}),
    ...(sandbox !== undefined ? { sandbox } : {}),
  };
}

export function gateRunEvents(gates: readonly GateResult[], taskId?: string): RunEventInput[] {
  return gates.map((gate) => ({
    type: 'gate',
    name: gate.name,
    ok: gate.ok,
    reason: gate.reason,
    ...(taskId !== undefined ? { task_id: taskId } : {}),
  }));
}
