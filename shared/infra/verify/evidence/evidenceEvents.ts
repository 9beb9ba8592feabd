import type { RunEventInput } from '../../../core/events/runEvent.js';
import type { SandboxKind } from '../../../core/runtime/sandboxMode.js';
import type { CheckEvidence } from './evidence.js';

/**
 * Evidence as the `check` run event the board and the run's JSON are built from: the coordinator
 * records these for the integration checks (gates/gateRunEvents.ts records the gates' verdicts).
 */
export function checkRunEvent(evidence: CheckEvidence, taskId?: string, sandbox?: SandboxKind): RunEventInput {
  return {
    type: 'check',
    command: evidence.command,
    exit_code: evidence.exit_code,
    tests_executed: evidence.counts.known ? evidence.counts.executed : null,
    tree: evidence.tree,
    log: evidence.log,
    ...(taskId !== undefined ? { task_id: taskId } : {}),
    ...(sandbox !== undefined ? { sandbox } : {}),
    ...(evidence.tampered ? { tampered: evidence.tampered } : {}),
  };
}
