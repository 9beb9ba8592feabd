import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeRunRepo } from '../../bench/runScript.js';
import { agentJobId } from '../../shared/infra/queue/agentQueue.js';
import { OrcaTestEnv, SLOW_TEST_MS } from '../support/orcaEnv.js';
import { OrcaProcess } from './faultRun.js';

/**
 * `orca abort` ends an `orca agent` run whatever stands: its job waiting for a worker that never
 * comes (none running here) is taken off the queue, and the command ends `aborted`; and once the
 * command itself is gone, the abort ends the run from the other process, as it does a run whose
 * coordinator died.
 */

function agentArgs(env: OrcaTestEnv): string[] {
  const repo = path.join(env.dir('repo'), 'project');
  makeRunRepo(repo);
  const script = path.join(env.dir('script'), 'script.json');
  writeFileSync(script, JSON.stringify({ latency_ms: 0, agents: [{ when: { role: 'worker' }, turns: [] }] }));
  // No local workers, and none started by the test: the job waits on the queue.
  return ['agent', '--role', 'worker', 'never taken', '--repo', repo, '--script', script, '--no-local-workers', '--json'];
}

async function jobState(env: OrcaTestEnv, runId: string): Promise<string> {
  return env.queue.queue.getJobState(agentJobId(runId, 'worker', 1));
}

describe('orca abort of an orca agent run', { timeout: SLOW_TEST_MS }, () => {
  it('takes its job off the queue while no worker holds it, and the command ends aborted (exit 130)', async () => {
    const env = await OrcaTestEnv.open();
    const agent = new OrcaProcess(env, agentArgs(env));
    const runId = await agent.runId;
    while ((await jobState(env, runId)) !== 'waiting') await new Promise((resolve) => setTimeout(resolve, 50));

    const abort = await env.cli(['abort', runId]);
    expect(abort.code, abort.stderr).toBe(0);

    const { code } = await agent.exited;
    expect(code, agent.stderr).toBe(130);
    expect(JSON.parse(agent.stdout)).toMatchObject({
      run_id: runId,
      status: 'aborted',
      detail: expect.stringMatching(/^the run was aborted \(orca abort\) before a worker took its job/),
    });
    expect(await jobState(env, runId)).toBe('unknown');
  });

  it('ends the run itself once the orca agent command is gone', async () => {
    const env = await OrcaTestEnv.open();
    const agent = new OrcaProcess(env, agentArgs(env));
    const runId = await agent.runId;
    while ((await jobState(env, runId)) !== 'waiting') await new Promise((resolve) => setTimeout(resolve, 50));
    agent.child.kill('SIGKILL');
    await agent.exited;

    const abort = await env.cli(['abort', runId]);
    expect(abort.code, abort.stderr).toBe(0);
    expect(abort.stdout).toMatch(
      new RegExp(`^orca: run ${runId} had no orca agent command: ended ABORTED here, 1 job\\(s\\) no worker held removed`, 'm'),
    );
    const board = JSON.parse((await env.cli(['status', runId, '--json'])).stdout) as { run: { state: string; detail: string } };
    expect(board.run).toMatchObject({ state: 'ABORTED', detail: 'orca abort (its orca agent command was not running)' });
    expect(await jobState(env, runId)).toBe('unknown');
  });
});
