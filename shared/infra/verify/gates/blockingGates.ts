import { type GateResult, gateNamed } from './gateList.js';

/**
 * Where a failed gate may stop the work: a Report, sent back to its agent (unless, for some gates,
 * it owns up to failure), or a finished task's merge into the integration branch.
 */
export type GateStop = { at: 'report'; admitsFailure: boolean } | { at: 'merge' };

/** The failed gates that stop `stop`, as each gate's own definition says (gate.ts). */
export function blockingGates(gates: readonly GateResult[], stop: GateStop): GateResult[] {
  return gates.filter((gate) => !gate.ok && stops(gateNamed(gate.name), stop));
}

function stops(gate: ReturnType<typeof gateNamed>, stop: GateStop): boolean {
  if (stop.at === 'merge') return gate.merge === 'refuse';
  return gate.report === 'refuse' || (gate.report === 'refuse_unless_admitted' && !stop.admitsFailure);
}
