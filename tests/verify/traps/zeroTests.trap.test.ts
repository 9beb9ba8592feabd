import { describe, expect, it } from 'vitest';
import { runCheck } from '../../../shared/infra/verify/checks/checkRun.js';
import { treeSnapshot } from '../../../shared/infra/verify/evidence/treeHash.js';
import { gateIntegration } from '../../../shared/infra/verify/gates/integrationGates.js';
import { runMayPass } from '../../../shared/infra/verify/gates/runPass.js';
import { tempDir } from '../../support/tempDir.js';
import { addProject, TEST_COMMAND } from './trapKit.js';

/** Trap: a test filter that matches no test. node exits 0, having run nothing. */
async function integrationOf(command: string) {
  const { dir, base } = addProject();
  const evidence = await runCheck({ command }, { cwd: dir, logDir: tempDir() });
  const currentTree = await treeSnapshot(dir);
  const report = await gateIntegration({ evidence: [evidence], worktree: dir, currentTree, leasedPorts: [], audit: { repo: dir, base } });
  return {
    evidence,
    report,
    pass: runMayPass({ evidence: [evidence], lastMergeAt: evidence.started_at - 1, currentTree, gates: report.gates }),
  };
}

describe('trap: a test filter matching no test (zero_tests)', () => {
  it('is caught: exit 0 with no test run is not a pass', async () => {
    const { evidence, report, pass } = await integrationOf(`node --test --test-name-pattern="multiplies" test/`);
    expect(evidence.exit_code).toBe(0);
    const gate = report.gates.find((one) => one.name === 'zero_tests')!;
    expect(gate.ok).toBe(false);
    expect(gate.reason).toContain('exited 0 but ran no test');
    expect(gate.reason).toContain('0 executed (0 passed, 0 failed, 2 skipped; node:test)');
    expect(report.checks[0]).toMatchObject({ status: 'not_run', tests_executed: 0 });
    expect(report.gates.filter((one) => !one.ok).map((one) => one.name)).toEqual(['zero_tests']);
    expect(pass.ok).toBe(false);
    expect(pass.reason).toContain('zero_tests');
  });

  it('without the trap, the same suite passes every gate', async () => {
    const { report, pass } = await integrationOf(TEST_COMMAND);
    expect(report.gates.every((one) => one.ok)).toBe(true);
    expect(report.gates.find((one) => one.name === 'zero_tests')!.reason).toContain('2 executed (2 passed, 0 failed; node:test)');
    expect(report.checks[0]).toMatchObject({ status: 'passed', tests_executed: 2 });
    expect(pass.ok).toBe(true);
  });
});
