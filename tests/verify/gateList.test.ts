import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { blockingGates } from '../../shared/infra/verify/gates/blockingGates.js';
import { GATE_NAMES, GATES, type GateResult, GateResultSchema, inGateOrder } from '../../shared/infra/verify/gates/gateList.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Every gate's verdict, failed unless named in `passed`. */
function verdicts(passed: readonly string[] = []): GateResult[] {
  return GATES.map((gate) => gate.verdict(passed.includes(gate.name), `${gate.name} said so`));
}

const names = (gates: readonly { name: string }[]) => gates.map((gate) => gate.name);

describe('the list of gates', () => {
  it('names each gate once, and its schema takes those names only', () => {
    expect(new Set(GATE_NAMES).size).toBe(GATES.length);
    expect(GATE_NAMES).toEqual(GATES.map((gate) => gate.name));
    expect(GateResultSchema.safeParse({ name: 'required', ok: true, reason: 'r' }).success).toBe(true);
    expect(GateResultSchema.safeParse({ name: 'vibes', ok: true, reason: 'r' }).success).toBe(false);
  });

  it('has each gate say what it checks, and never give an empty reason', () => {
    for (const gate of GATES) {
      expect(gate.checks.trim()).not.toBe('');
      expect(gate.verdict(true, ' ')).toEqual({ name: gate.name, ok: true, reason: 'nothing to judge' });
      expect(gate.verdict(false, '')).toEqual({ name: gate.name, ok: false, reason: 'failed, no reason recorded' });
    }
  });

  it('puts verdicts in gate order, with a name no gate has first', () => {
    const shuffled = [{ name: 'required' }, { name: 'zero_tests' }, { name: 'claims' }, { name: 'retired' }, { name: 'stale' }];
    expect(names(inGateOrder(shuffled))).toEqual(['retired', 'zero_tests', 'stale', 'claims', 'required']);
  });

  it('is the list docs/json.md gives, in the same order', () => {
    const json = readFileSync(path.join(ROOT, 'docs/json.md'), 'utf8');
    expect(json).toContain(`in the order ${GATE_NAMES.map((name) => `\`${name}\``).join(', ')}`);
  });
});

describe('which failed gates stop a report or a merge', () => {
  it('sends a Report back for every failed gate but assertions, which the Verification agent judges', () => {
    expect(names(blockingGates(verdicts(), { at: 'report', admitsFailure: false }))).toEqual([
      'zero_tests',
      'stale',
      'target',
      'claims',
      'required',
    ]);
  });

  it('does not send a Report back for its required checks when it owns up to failure', () => {
    expect(names(blockingGates(verdicts(), { at: 'report', admitsFailure: true }))).toEqual(['zero_tests', 'stale', 'target', 'claims']);
  });

  it('keeps a branch out of the integration branch for every failed gate but assertions', () => {
    expect(names(blockingGates(verdicts(), { at: 'merge' }))).toEqual(['zero_tests', 'stale', 'target', 'claims', 'required']);
  });

  it('never stops anything for a gate that passed', () => {
    expect(blockingGates(verdicts(GATE_NAMES), { at: 'report', admitsFailure: false })).toEqual([]);
    expect(blockingGates(verdicts(GATE_NAMES), { at: 'merge' })).toEqual([]);
    expect(names(blockingGates(verdicts(['zero_tests', 'target', 'claims']), { at: 'merge' }))).toEqual(['stale', 'required']);
  });
});
