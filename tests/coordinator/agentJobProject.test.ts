import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { agentJobId } from '../../shared/infra/queue/agentQueue.js';
import { commitFiles, git } from '../support/gitRepo.js';
import { OrcaTestEnv, SLOW_TEST_MS } from '../support/orcaEnv.js';

describe("orca agent's job carries orca.json as the base has it", () => {
  let env: OrcaTestEnv | undefined;
  afterAll(async () => env?.close());

  it('read once by the command (for the agent choice), so its worker does not read it again', { timeout: SLOW_TEST_MS }, async () => {
    env = await OrcaTestEnv.open();
    const repo = env.dir('repo');
    git(repo, 'init', '-q', '-b', 'main');
    commitFiles(
      repo,
      { 'orca.json': JSON.stringify({ symlinkDirectories: ['vendor'], setupTimeoutSeconds: 42 }), 'README.md': '# r\n' },
      'initial',
    );
    // A later edit in the checkout is not the run's: the job has the base's.
    writeFileSync(path.join(repo, 'orca.json'), JSON.stringify({ setupTimeoutSeconds: 7 }));
    const script = path.join(env.dir('scripts'), 'report.json');
    writeFileSync(
      script,
      JSON.stringify({
        agents: [
          {
            when: { role: 'worker' },
            turns: [{ tools: [{ name: 'Report', input: { summary: 'done', unresolved: [], claimed_checks: [] } }] }],
          },
        ],
      }),
    );
    const run = await env.cli([
      'agent',
      '--role',
      'worker',
      'nothing to do',
      '--repo',
      repo,
      '--script',
      script,
      '--allow-dirty',
      '--json',
    ]);
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    const { run_id: runId } = JSON.parse(run.stdout) as { run_id: string };
    const job = await env.queue.getJob(agentJobId(runId, 'worker', 1));
    expect(job?.data.project).toEqual({ setup: [], setupTimeoutSeconds: 42, symlinkDirectories: ['vendor'] });
  });
});
