import { ASSERTIONS } from './assertions.js';
import { CLAIMS } from './claims.js';
import type { GateDefinition } from './gate.js';
import { GATE_NAME_LIST, type GateName } from './gateNames.js';
import { REQUIRED } from './required.js';
import { STALE } from './stale.js';
import { TARGET } from './target.js';
import { ZERO_TESTS } from './zeroTests.js';

/**
 * Every gate, in the order their verdicts are shown (the run's JSON, the board, a PR body). A gate
 * is its own file (gate.ts says what one holds); adding one is that file and a line here.
 */
export const GATES = [ZERO_TESTS, STALE, TARGET, ASSERTIONS, CLAIMS, REQUIRED] as const;

type NamesOf<Gates> = { -readonly [K in keyof Gates]: Gates[K] extends GateDefinition<infer Name> ? Name : never };

/** gateNames.ts's list, typed from the gates: it does not compile unless it names these gates, in this order. */
export const GATE_NAMES: NamesOf<typeof GATES> = [...GATE_NAME_LIST];
export { type GateName, GateNameSchema, type GateResult, GateResultSchema } from './gateNames.js';

export function gateNamed(name: GateName): GateDefinition<GateName> {
  return GATES.find((gate) => gate.name === name)!;
}

/** Verdicts in the gates' order; a name no gate has (an older run's) goes first. */
export function inGateOrder<Named extends { name: string }>(gates: readonly Named[]): Named[] {
  const order: readonly string[] = GATE_NAMES;
  return [...gates].sort((a, b) => order.indexOf(a.name) - order.indexOf(b.name));
}
