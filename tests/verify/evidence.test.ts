import { describe, expect, it } from 'vitest';
import { describeZodError } from '../../shared/core/boundary/zodIssues.js';
import { RunEventSchema } from '../../shared/core/events/runEvent.js';
import { runCheck } from '../../shared/infra/verify/checks/checkRun.js';
import { CheckEvidenceSchema, CheckSpecSchema } from '../../shared/infra/verify/evidence/evidence.js';
import { checkRunEvent } from '../../shared/infra/verify/evidence/evidenceEvents.js';
import { gateRunEvents } from '../../shared/infra/verify/gates/gateRunEvents.js';
import { gateIntegration } from '../../shared/infra/verify/gates/integrationGates.js';
import { tempDir } from '../support/tempDir.js';
import { addProject, TEST_COMMAND } from './traps/trapKit.js';

describe('evidence at its boundaries', () => {
  it('a check is named by a command line or by an object; a bad one is refused with the field named', () => {
    expect(CheckSpecSchema.parse('npm test')).toEqual({ command: 'npm test' });
    expect(CheckSpecSchema.parse({ command: 'npm run e2e', target_ports: [4100], junit: ['reports/*.xml'] })).toEqual({
      command: 'npm run e2e',
      target_ports: [4100],
      junit: ['reports/*.xml'],
    });
    const bad = CheckSpecSchema.safeParse({ command: 'npm run e2e', target_port: 4100 });
    expect(bad.success).toBe(false);
    expect(describeZodError(bad.error!, 'check')).toContain('target_port');
  });

  it('evidence survives the trip through JSON (worker to coordinator), and becomes valid check and gate run events', async () => {
    const { dir, base } = addProject();
    const evidence = await runCheck({ command: TEST_COMMAND }, { cwd: dir, logDir: tempDir() });
    expect(CheckEvidenceSchema.parse(JSON.parse(JSON.stringify(evidence)))).toEqual(evidence);

    const check = RunEventSchema.parse({ ...checkRunEvent(evidence, 't1'), at: 1 });
    expect(check).toMatchObject({
      type: 'check',
      command: TEST_COMMAND,
      exit_code: 0,
      tests_executed: 2,
      tree: evidence.tree,
      log: evidence.log,
      task_id: 't1',
    });
    const { gates } = await gateIntegration({ evidence: [evidence], worktree: dir, leasedPorts: [], audit: { repo: dir, base } });
    const events = gateRunEvents(gates).map((event) => RunEventSchema.parse({ ...event, at: 2 }));
    expect(events.map((event) => event.type === 'gate' && event.name)).toEqual(['zero_tests', 'stale', 'target', 'assertions', 'claims']);
  });
});
