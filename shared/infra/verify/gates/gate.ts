/**
 * What a gate is: a named judgement of an agent's evidence that says what a failure of it stops.
 * Each gate describes itself in its own file (zeroTests.ts, stale.ts, …) with `defineGate`;
 * gateList.ts lists them in the order their verdicts are shown, and blockingGates.ts asks them what
 * a failed verdict stops. On the integration checks every gate must pass for a run to PASS
 * (runPass.ts), whatever it stops on a Worker's report.
 */
export interface Verdict<Name extends string = string> {
  name: Name;
  ok: boolean;
  reason: string;
}

export interface GateDefinition<Name extends string = string> {
  readonly name: Name;
  /** What it checks, in one line. */
  readonly checks: string;
  /**
   * What its failure does to a Worker's or Verification agent's Report: `refuse` sends it back to
   * the agent with the reasons; `refuse_unless_admitted` does so unless the Report owns up to
   * failure (a Worker's non-empty `unresolved`); `advisory` lets it through.
   */
  readonly report: 'refuse' | 'refuse_unless_admitted' | 'advisory';
  /** What its failure on a finished task's report does to the merge: `refuse` keeps the branch out of the integration branch. */
  readonly merge: 'refuse' | 'advisory';
  /**
   * `verification`: its failure stands until the Verification agent confirms what it flagged, so it
   * is judged only once that agent has reported, and unconfirmed it fails the work it concerns
   * (that work is taken off the integration branch). Absent: it judges the merged tree after each
   * merge, with the integration checks.
   */
  readonly confirmedBy?: 'verification';
  /** Its verdict, with its own reason: never an empty one (a gate with nothing to judge passes, saying so). */
  verdict(ok: boolean, reason: string): Verdict<Name>;
}

export type VerdictOf<Gate extends GateDefinition> = ReturnType<Gate['verdict']>;

export function defineGate<const Name extends string>(definition: Omit<GateDefinition<Name>, 'verdict'>): GateDefinition<Name> {
  return {
    ...definition,
    verdict: (ok, reason) => ({
      name: definition.name,
      ok,
      reason: reason.trim() === '' ? (ok ? 'nothing to judge' : 'failed, no reason recorded') : reason,
    }),
  };
}

/** Whether a failed verdict is one only the Verification agent's confirmation lifts (gate.confirmedBy). */
export function awaitsConfirmation(gate: Pick<GateDefinition, 'confirmedBy'>): boolean {
  return gate.confirmedBy === 'verification';
}

export function allGatesPass(gates: readonly Verdict[]): boolean {
  return gates.every((gate) => gate.ok);
}

/** `stale: <reason>; claims: <reason>` for the gates that failed, or '' when none did. */
export function failedGatesText(gates: readonly Verdict[]): string {
  return gates
    .filter((gate) => !gate.ok)
    .map((gate) => `${gate.name}: ${gate.reason}`)
    .join('; ');
}
