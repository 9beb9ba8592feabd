import { describe, expect, it } from 'vitest';
import type { ClaimedCheck } from '../../../shared/infra/verify/evidence/evidence.js';
import { commandsFromLedger } from '../../../shared/infra/verify/gates/claims.js';
import { gateWorkerReport } from '../../../shared/infra/verify/gates/workerGates.js';
import { ADD_TESTS, addProject, bash, report, runWorker, TEST_COMMAND } from './trapKit.js';

/**
 * A check inside a pipeline, as models run them by habit: `node --test test/ 2>&1 | tail -5`.
 * The pipe exits 0 (tail's code) whatever the tests did; the gates judge the first stage's own
 * exit status, recorded by Bash from PIPESTATUS.
 */
async function gatedPipe(options: { failing: boolean; run: string; claims: ClaimedCheck[] }) {
  const { dir, base } = addProject(
    options.failing ? { 'test/add.test.mjs': ADD_TESTS.replace('assert.equal(add(1, 2), 3)', 'assert.equal(add(1, 2), 4)') } : {},
  );
  const run = await runWorker({
    root: dir,
    turns: [bash(options.run), report(options.claims)],
    recorderOptions: { alsoRecord: [TEST_COMMAND] },
  });
  expect(run.result.reason).toBe('report');
  const gated = await gateWorkerReport({
    claims: options.claims,
    commands: commandsFromLedger(run.session.ledger.all()),
    evidence: run.recorder.evidence(),
    worktree: dir,
    leasedPorts: [],
    audit: { repo: dir, base },
    who: 'worker t1',
    required: [TEST_COMMAND],
  });
  return { run, gated };
}

const PIPE = `${TEST_COMMAND} 2>&1 | tail -5`;

describe('trap: a check run through a pipe (| tail, | head, | tee)', () => {
  it('counts as a run of the check when the tests pass: the claim and the required check hold', async () => {
    const { run, gated } = await gatedPipe({ failing: false, run: PIPE, claims: [{ command: TEST_COMMAND, exit_code: 0 }] });
    expect(gated.gates.filter((gate) => !gate.ok)).toEqual([]);
    const [evidence] = run.recorder.evidence();
    expect(evidence).toMatchObject({ command: TEST_COMMAND, command_line: PIPE, exit_code: 0, outcome: 'exited' });
    // tail kept the last 5 lines: too few of node:test's summary to count the tests, which is no failure.
    expect(evidence!.counts).toMatchObject({ known: false });
  });

  it('is judged on the test stage when the tests fail, though the pipe exited 0', async () => {
    const { run, gated } = await gatedPipe({ failing: true, run: PIPE, claims: [{ command: TEST_COMMAND, exit_code: 0 }] });
    const [entry] = run.session.ledger.byName('Bash');
    expect(entry!.data).toMatchObject({ exitCode: 0, pipeStatus: [1, 0] });
    const failed = gated.gates.filter((gate) => !gate.ok).map((gate) => [gate.name, gate.reason]);
    expect(failed).toEqual([
      ['claims', `1 of 1 checks claimed by worker t1 dropped: \`${TEST_COMMAND}\` (exit 0): its own tool log has it exiting 1, never 0`],
      ['required', `worker t1: required check \`${TEST_COMMAND}\` exited 1 in its latest run`],
    ]);
  });

  it('judges the whole line on the test stage too, so claiming the pipe itself does not pass failing tests', async () => {
    const { gated } = await gatedPipe({ failing: true, run: PIPE, claims: [{ command: PIPE, exit_code: 0 }] });
    expect(gated.gates.find((gate) => gate.name === 'claims')).toMatchObject({ ok: false });
    expect(gated.dropped.map((drop) => drop.why)).toEqual(['its own tool log has it exiting 1, never 0']);
  });

  it.each([`${TEST_COMMAND} | head -40`, `${TEST_COMMAND} 2>&1 | tee "$TMPDIR/tests.log"`])(
    'counts %j as a run of the check, with the check’s exit code',
    async (command) => {
      const { gated } = await gatedPipe({ failing: true, run: command, claims: [{ command: TEST_COMMAND, exit_code: 1 }] });
      expect(gated.gates.find((gate) => gate.name === 'claims')).toMatchObject({ ok: true });
      expect(gated.gates.find((gate) => gate.name === 'required')).toMatchObject({ ok: false });
    },
  );

  it('does not count a check that is not the first stage, nor one inside a longer line', async () => {
    const claims = [{ command: TEST_COMMAND, exit_code: 0 }];
    const later = await gatedPipe({ failing: false, run: `echo start | ${TEST_COMMAND}`, claims });
    expect(later.gated.gates.find((gate) => gate.name === 'claims')).toMatchObject({ ok: false });
    const chained = await gatedPipe({ failing: false, run: `true && ${TEST_COMMAND} | tail -5`, claims });
    expect(chained.gated.gates.find((gate) => gate.name === 'claims')).toMatchObject({ ok: false });
  });
});
