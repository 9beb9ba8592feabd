import type { RunEventInput } from '../../../core/events/runEvent.js';
import type { Verdict } from './gate.js';

/**
 * Gate verdicts as the `gate` run events the board and the run's JSON are built from: the
 * coordinator records these for every Worker report and for the integration checks.
 */
export function gateRunEvents(gates: readonly Verdict[], taskId?: string): RunEventInput[] {
  return gates.map((gate) => ({
    type: 'gate',
    name: gate.name,
    ok: gate.ok,
    reason: gate.reason,
    ...(taskId !== undefined ? { task_id: taskId } : {}),
  }));
}
