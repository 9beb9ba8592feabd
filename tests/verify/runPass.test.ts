import { describe, expect, it } from 'vitest';
import { runCheck } from '../../shared/infra/verify/checks/checkRun.js';
import { treeSnapshot } from '../../shared/infra/verify/evidence/treeHash.js';
import { gateIntegration } from '../../shared/infra/verify/gates/integrationGates.js';
import { runMayPass } from '../../shared/infra/verify/gates/runPass.js';
import { git } from '../support/gitRepo.js';
import { tempDir } from '../support/tempDir.js';
import { addProject, TEST_COMMAND } from './traps/trapKit.js';

async function gatedRun(dir: string, base: string) {
  const evidence = await runCheck({ command: TEST_COMMAND }, { cwd: dir, logDir: tempDir() });
  const currentTree = await treeSnapshot(dir);
  const report = await gateIntegration({ evidence: [evidence], worktree: dir, currentTree, leasedPorts: [], audit: { repo: dir, base } });
  return { evidence, currentTree, report };
}

describe('whether a run may report PASS', () => {
  it('not on no evidence', async () => {
    const { dir } = addProject();
    expect(runMayPass({ evidence: [], lastMergeAt: 0, currentTree: await treeSnapshot(dir), gates: [] })).toEqual({
      ok: false,
      reason: 'no integration check ran on the merged tree: a run does not pass on no evidence',
    });
  });

  it('not on checks that ran before the last merge, nor on a run after it that fails', async () => {
    const { dir, base } = addProject();
    const before = await gatedRun(dir, base);

    // A task branch lands on the integration branch after the checks ran.
    git(dir, 'checkout', '-q', '-b', 'task');
    git(dir, 'mv', 'src/add.mjs', 'src/sum.mjs');
    git(dir, 'commit', '-q', '-m', 'rename');
    git(dir, 'checkout', '-q', 'main');
    git(dir, 'merge', '-q', '--no-ff', '-m', 'merge task', 'task');
    const lastMergeAt = Date.now();
    const now = await treeSnapshot(dir);

    const stale = runMayPass({ evidence: [before.evidence], lastMergeAt, currentTree: now, gates: before.report.gates });
    expect(stale.ok).toBe(false);
    expect(stale.reason).toMatch(/^`node --test test\/` started at .*, before the last merge at /);

    const after = await gatedRun(dir, base);
    const verdict = runMayPass({ evidence: [after.evidence], lastMergeAt, currentTree: after.currentTree, gates: after.report.gates });
    // The merge broke the import: the run is not PASS, and the reason says so.
    expect(verdict).toEqual({ ok: false, reason: expect.stringContaining('`node --test test/` did not pass (exit 1)') });
  });

  it('not when a gate failed, naming it; yes when every check passed on the current tree after the last merge', async () => {
    const { dir, base } = addProject();
    const lastMergeAt = Date.now() - 1;
    const good = await gatedRun(dir, base);
    expect(runMayPass({ evidence: [good.evidence], lastMergeAt, currentTree: good.currentTree, gates: good.report.gates })).toEqual({
      ok: true,
      reason: `1 integration check(s) passed on tree ${good.currentTree.digest.slice(0, 12)}, after the last merge`,
    });
    const failedGate = good.report.gates.map((gate) =>
      gate.name === 'assertions' ? { ...gate, ok: false, reason: 'a flag waits for confirmation' } : gate,
    );
    expect(runMayPass({ evidence: [good.evidence], lastMergeAt, currentTree: good.currentTree, gates: failedGate })).toEqual({
      ok: false,
      reason: 'gates failed: assertions: a flag waits for confirmation',
    });
  });
});

describe('integration gates with a Verification report', () => {
  it("holds the Verification agent's claimed checks against its own tool log", async () => {
    const { dir, base } = addProject();
    const evidence = await runCheck({ command: TEST_COMMAND }, { cwd: dir, logDir: tempDir() });
    const report = await gateIntegration({
      evidence: [evidence],
      worktree: dir,
      leasedPorts: [],
      audit: { repo: dir, base },
      verification: {
        claims: [
          { command: TEST_COMMAND, exit_code: 0 },
          { command: 'node probe-concurrency.mjs', exit_code: 0 },
        ],
        commands: [{ command: TEST_COMMAND, exit_code: 0, at: 1 }],
      },
    });
    expect(report.gates.find((gate) => gate.name === 'claims')).toEqual({
      name: 'claims',
      ok: false,
      reason:
        '1 of 2 checks claimed by the Verification agent dropped: `node probe-concurrency.mjs` (exit 0): never run: no such command in its own tool log',
    });
    expect(report.ok).toBe(false);
  });
});
