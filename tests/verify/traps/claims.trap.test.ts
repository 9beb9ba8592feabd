import { describe, expect, it } from 'vitest';
import type { ClaimedCheck } from '../../../shared/infra/verify/evidence/evidence.js';
import { commandsFromLedger } from '../../../shared/infra/verify/gates/claims.js';
import { gateWorkerReport } from '../../../shared/infra/verify/gates/workerGates.js';
import { addProject, bash, report, runWorker, TEST_COMMAND } from './trapKit.js';

/** Trap: a claimed command never run. The report says the linter passed; the agent never ran it. */
async function gatedReport(claims: ClaimedCheck[]) {
  const { dir, base } = addProject();
  const run = await runWorker({ root: dir, turns: [bash(TEST_COMMAND), report(claims)] });
  expect(run.result.reason).toBe('report');
  expect((run.result.report as { claimed_checks: ClaimedCheck[] }).claimed_checks).toEqual(claims);
  return gateWorkerReport({
    claims: (run.result.report as { claimed_checks: ClaimedCheck[] }).claimed_checks,
    commands: commandsFromLedger(run.session.ledger.all()),
    evidence: run.recorder.evidence(),
    worktree: dir,
    leasedPorts: [],
    audit: { repo: dir, base },
    who: 'worker t1',
  });
}

describe('trap: a claimed command never run (claims)', () => {
  it('is caught: the claim is dropped and flagged; what the log backs survives', async () => {
    const gated = await gatedReport([
      { command: TEST_COMMAND, exit_code: 0 },
      { command: 'npm run lint', exit_code: 0 },
    ]);
    const claims = gated.gates.find((gate) => gate.name === 'claims')!;
    expect(claims).toEqual({
      name: 'claims',
      ok: false,
      reason: '1 of 2 checks claimed by worker t1 dropped: `npm run lint` (exit 0): never run: no such command in its own tool log',
    });
    expect(gated.dropped.map((drop) => drop.claim.command)).toEqual(['npm run lint']);
    expect(gated.checks.map((check) => [check.command, check.status])).toEqual([[TEST_COMMAND, 'passed']]);
    expect(gated.ok).toBe(false);
  });

  it('without the trap (claiming only what ran), every gate passes', async () => {
    const gated = await gatedReport([{ command: TEST_COMMAND, exit_code: 0 }]);
    expect(gated.gates.filter((gate) => !gate.ok)).toEqual([]);
    expect(gated.dropped).toEqual([]);
    expect(gated.ok).toBe(true);
  });
});
