import { describe, expect, it } from 'vitest';
import type { ScriptTurn } from '../../../shared/core/model/scriptFile.js';
import { createReportGate } from '../../../shared/infra/verify/checks/reportGate.js';
import type { ClaimedCheck } from '../../../shared/infra/verify/evidence/evidence.js';
import { commandsFromLedger } from '../../../shared/infra/verify/gates/claims.js';
import { gateWorkerReport } from '../../../shared/infra/verify/gates/workerGates.js';
import { addProject, bash, report, runWorker, TEST_COMMAND } from './trapKit.js';

/** Trap: a worker that claims nothing (or a stale run) reports its subtask done without running its check. */
const EDIT: ScriptTurn[] = [
  { tools: [{ name: 'Read', input: { file_path: 'src/add.mjs' } }] },
  { tools: [{ name: 'Edit', input: { file_path: 'src/add.mjs', old_string: '(a, b) => a + b', new_string: '(a, b) => b + a' } }] },
];

async function gatedRun(turns: ScriptTurn[], required: string[] = [TEST_COMMAND]) {
  const { dir, base } = addProject();
  const run = await runWorker({ root: dir, turns });
  expect(run.result.reason).toBe('report');
  const gated = await gateWorkerReport({
    claims: (run.result.report as { claimed_checks: ClaimedCheck[] }).claimed_checks,
    commands: commandsFromLedger(run.session.ledger.all()),
    evidence: run.recorder.evidence(),
    worktree: dir,
    leasedPorts: [],
    audit: { repo: dir, base },
    who: 'worker t1',
    required,
  });
  return { gated, required: gated.gates.find((gate) => gate.name === 'required')! };
}

describe('trap: a worker reports done without its required check (required)', () => {
  it('is caught when it claims nothing: claims, zero_tests and stale pass, required does not', async () => {
    const { gated, required } = await gatedRun([...EDIT, report([])]);
    expect(gated.gates.filter((gate) => !gate.ok).map((gate) => gate.name)).toEqual(['required']);
    expect(required.reason).toBe(`worker t1: required check \`${TEST_COMMAND}\` never ran in its session`);
    expect(gated.ok).toBe(false);
  });

  it('is caught when the check ran before its last edit', async () => {
    const { required } = await gatedRun([bash(TEST_COMMAND), ...EDIT, report([{ command: TEST_COMMAND, exit_code: 0 }])]);
    expect(required.ok).toBe(false);
    expect(required.reason).toMatch(
      new RegExp(
        `^worker t1: required check \`${TEST_COMMAND}\` last ran before the last change to the tree \\(ran on tree .*since it ran, .*src/add\\.mjs`,
      ),
    );
  });

  it('is caught when its latest run failed, even after an earlier pass', async () => {
    const { required } = await gatedRun(
      [...EDIT, bash(TEST_COMMAND), bash(`${TEST_COMMAND} && false`), report([])],
      [`${TEST_COMMAND} && false`],
    );
    expect(required).toMatchObject({
      ok: false,
      reason: `worker t1: required check \`${TEST_COMMAND} && false\` exited 1 in its latest run`,
    });
  });

  it('is caught when the required check ran no test', async () => {
    const none = `node --test --test-name-pattern=nothing-matches test/`;
    const { required } = await gatedRun([...EDIT, bash(none), report([{ command: none, exit_code: 0 }])], [none]);
    expect(required.ok).toBe(false);
    expect(required.reason).toContain('ran no test');
  });

  it('records a required check that does not look like a test run, and holds it to the same rules', async () => {
    const probe = 'node -e "process.exit(0)"';
    const { dir, base } = addProject();
    const run = await runWorker({ root: dir, turns: [...EDIT, bash(probe), report([])], recorderOptions: { alsoRecord: [probe] } });
    const gated = await gateWorkerReport({
      claims: [],
      commands: commandsFromLedger(run.session.ledger.all()),
      evidence: run.recorder.evidence(),
      worktree: dir,
      leasedPorts: [],
      audit: { repo: dir, base },
      required: [probe],
    });
    expect(gated.gates.find((gate) => gate.name === 'required')).toMatchObject({ ok: true });
  });

  it('without the trap (the check run after the last edit), every gate passes', async () => {
    const { gated, required } = await gatedRun([...EDIT, bash(TEST_COMMAND), report([])]);
    expect(required).toMatchObject({ ok: true, reason: expect.stringContaining(`\`${TEST_COMMAND}\`: 2 executed (2 passed`) });
    expect(gated.ok).toBe(true);
  });

  it('sends the report back naming the missing check, unless the report owns up to failure', async () => {
    const { dir, base } = addProject();
    const options = { claimsOf: () => [], base, leasedPorts: [], who: 'worker t1', required: [TEST_COMMAND] };
    const gate = createReportGate({
      ...options,
      admitsFailure: (input) => ((input as { unresolved?: string[] }).unresolved ?? []).length > 0,
    });
    const refused = await runWorker({ root: dir, turns: [...EDIT, report([]), report([])], stopCheck: gate });
    const sentBack = refused.session.messages.find(
      (message) => message.role === 'user' && message.content.some((block) => block.type === 'text' && block.text.includes('- required:')),
    );
    expect(JSON.stringify(sentBack)).toContain(`required check \`${TEST_COMMAND}\` never ran in its session`);

    const second = addProject();
    const honest = await runWorker({
      root: second.dir,
      turns: [
        ...EDIT,
        {
          tools: [
            { name: 'Report', input: { summary: 'Could not finish.', unresolved: ['the tests do not run here'], claimed_checks: [] } },
          ],
        },
      ],
      stopCheck: createReportGate({
        ...options,
        base: second.base,
        admitsFailure: (input) => ((input as { unresolved?: string[] }).unresolved ?? []).length > 0,
      }),
    });
    // One Report, accepted at once: it says it failed, so there is nothing to send it back for.
    expect(honest.result.reason).toBe('report');
    expect(honest.result.turns).toBe(3);
  });
});
