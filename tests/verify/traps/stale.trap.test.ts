import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCheck } from '../../../shared/infra/verify/checks/checkRun.js';
import { treeSnapshot } from '../../../shared/infra/verify/evidence/treeHash.js';
import { commandsFromLedger } from '../../../shared/infra/verify/gates/claims.js';
import { gateIntegration } from '../../../shared/infra/verify/gates/integrationGates.js';
import { runMayPass } from '../../../shared/infra/verify/gates/runPass.js';
import { gateWorkerReport } from '../../../shared/infra/verify/gates/workerGates.js';
import { tempDir } from '../../support/tempDir.js';
import { addProject, bash, report, runWorker, TEST_COMMAND } from './trapKit.js';

/** Trap: evidence taken before a later edit. The pass was real, on a tree that no longer exists. */
describe('trap: evidence taken before a later edit (stale)', () => {
  it('is caught on the integration checks: the check is not_run on the tree as it is now, and the changed file is named', async () => {
    const { dir, base } = addProject();
    const evidence = await runCheck({ command: TEST_COMMAND }, { cwd: dir, logDir: tempDir() });
    expect(evidence.exit_code).toBe(0);
    writeFileSync(path.join(dir, 'src/add.mjs'), 'export const add = (a, b) => a - b;\n');

    const currentTree = await treeSnapshot(dir);
    const gated = await gateIntegration({ evidence: [evidence], worktree: dir, currentTree, leasedPorts: [], audit: { repo: dir, base } });
    const stale = gated.gates.find((gate) => gate.name === 'stale')!;
    expect(stale.ok).toBe(false);
    expect(stale.reason).toMatch(
      /`node --test test\/` ran on tree [0-9a-f]{12}, the tree is now [0-9a-f]{12}: since it ran, src\/add\.mjs \(changed\); it is not_run on this tree/,
    );
    expect(gated.checks[0]!.status).toBe('not_run');
    expect(runMayPass({ evidence: [evidence], lastMergeAt: 0, currentTree, gates: gated.gates }).ok).toBe(false);
  });

  it("is caught on a worker's report even when the later change was made by a shell command, not an Edit", async () => {
    const { dir, base } = addProject();
    const run = await runWorker({
      root: dir,
      turns: [bash(TEST_COMMAND), bash("sed -i 's/a + b/a - b/' src/add.mjs"), report([{ command: TEST_COMMAND, exit_code: 0 }])],
    });
    expect(run.result.reason).toBe('report');
    const gated = await gateWorkerReport({
      claims: [{ command: TEST_COMMAND, exit_code: 0 }],
      commands: commandsFromLedger(run.session.ledger.all()),
      evidence: run.recorder.evidence(),
      worktree: dir,
      leasedPorts: [],
      audit: { repo: dir, base },
    });
    expect(gated.gates.find((gate) => gate.name === 'claims')!.ok).toBe(true);
    const stale = gated.gates.find((gate) => gate.name === 'stale')!;
    expect(stale.ok).toBe(false);
    expect(stale.reason).toContain('src/add.mjs (changed)');
    expect(gated.checks).toMatchObject([{ command: TEST_COMMAND, status: 'not_run', tests_executed: 2 }]);
    expect(gated.ok).toBe(false);
  });

  it('without the trap (the check run after the last change), every gate passes', async () => {
    const { dir, base } = addProject();
    writeFileSync(path.join(dir, 'src/add.mjs'), 'export const add = (a, b) => b + a;\n');
    const run = await runWorker({ root: dir, turns: [bash(TEST_COMMAND), report([{ command: TEST_COMMAND, exit_code: 0 }])] });
    const gated = await gateWorkerReport({
      claims: [{ command: TEST_COMMAND, exit_code: 0 }],
      commands: commandsFromLedger(run.session.ledger.all()),
      evidence: run.recorder.evidence(),
      worktree: dir,
      leasedPorts: [],
      audit: { repo: dir, base },
    });
    expect(gated.gates.filter((gate) => !gate.ok)).toEqual([]);
    expect(gated.checks).toMatchObject([{ command: TEST_COMMAND, status: 'passed', tests_executed: 2 }]);
  });
});
