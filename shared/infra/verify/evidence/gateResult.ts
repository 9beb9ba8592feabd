import type { z } from 'zod';
import { GATE_NAMES, type GateNameSchema, type GateResultSchema } from './evidence.js';

export type GateName = z.infer<typeof GateNameSchema>;
export type GateResult = z.infer<typeof GateResultSchema>;

/**
 * A gate's verdict with its own reason. A gate that has nothing to judge passes, and its reason
 * says there was nothing (never an empty string).
 */
export function gateResult(name: GateName, ok: boolean, reason: string): GateResult {
  return { name, ok, reason: reason.trim() === '' ? (ok ? 'nothing to judge' : 'failed, no reason recorded') : reason };
}

/** The gates in their fixed order (zero_tests, stale, target, assertions, claims). */
export function inGateOrder(gates: readonly GateResult[]): GateResult[] {
  return [...gates].sort((a, b) => GATE_NAMES.indexOf(a.name) - GATE_NAMES.indexOf(b.name));
}

export function allGatesPass(gates: readonly GateResult[]): boolean {
  return gates.every((gate) => gate.ok);
}

/** `stale: <reason>; claims: <reason>` for the gates that failed, or '' when none did. */
export function failedGatesText(gates: readonly GateResult[]): string {
  return gates
    .filter((gate) => !gate.ok)
    .map((gate) => `${gate.name}: ${gate.reason}`)
    .join('; ');
}
