import { z } from 'zod';
import { ASSERTIONS } from './assertions.js';
import { CLAIMS } from './claims.js';
import type { GateDefinition } from './gate.js';
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

export const GATE_NAMES = GATES.map((gate) => gate.name) as NamesOf<typeof GATES>;
export const GateNameSchema = z.enum(GATE_NAMES);
export type GateName = z.infer<typeof GateNameSchema>;

/** One gate's verdict, as a job result carries it and the run JSON's `gates` holds it. */
export const GateResultSchema = z.object({ name: GateNameSchema, ok: z.boolean(), reason: z.string() });
export type GateResult = z.infer<typeof GateResultSchema>;

export function gateNamed(name: GateName): GateDefinition<GateName> {
  return GATES.find((gate) => gate.name === name)!;
}

/** Verdicts in the gates' order; a name no gate has (an older run's) goes first. */
export function inGateOrder<Named extends { name: string }>(gates: readonly Named[]): Named[] {
  const order: readonly string[] = GATE_NAMES;
  return [...gates].sort((a, b) => order.indexOf(a.name) - order.indexOf(b.name));
}
