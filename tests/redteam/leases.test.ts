import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRunEvents } from '../../shared/infra/board/runEvents.js';
import { agentJobId } from '../../shared/infra/queue/agentQueue.js';
import { commitFiles, git } from '../support/gitRepo.js';
import { OrcaTestEnv, SLOW_TEST_MS } from '../support/orcaEnv.js';
import { reportTurn, scriptedJob, testRunId } from '../support/scriptedJobs.js';

async function leasesLeft(env: OrcaTestEnv): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await env.redis.scan(cursor, 'MATCH', env.keys.portLeases(), 'COUNT', 500);
    cursor = next;
    found.push(...keys);
  } while (cursor !== '0');
  return found;
}

describe('port leases', { timeout: SLOW_TEST_MS }, () => {
  it('are all released when a malformed .claude/settings.json fails the job after its ports were leased', async () => {
    const env = await OrcaTestEnv.open();
    const repo = env.dir('repo');
    git(repo, 'init', '-q', '-b', 'main');
    const base = commitFiles(repo, { 'a.txt': 'a\n', '.claude/settings.json': '{ "hooks": { "Stop": [ ' }, 'broken settings');
    // The checkout's own copy reads fine; the base commit's, which is what the job is configured by, does not.
    // The worker leases the job's ports first, then reads the configuration, which throws.
    writeFileSync(path.join(repo, '.claude/settings.json'), '{}');
    await env.startWorker({ concurrency: 1 });
    const runId = testRunId('lease');
    await env.queue.add(scriptedJob({ runId, taskId: 't1', repo: { path: repo }, base, ports: 3, turns: [reportTurn()] }));
    const outcome = await env.result(agentJobId(runId, 't1', 1)).then(
      (result) => `completed as ${result.status}: ${result.detail}`,
      (error: Error) => `failed: ${error.message}`,
    );
    expect(outcome).toMatch(/settings\.json/);
    // Nothing of the job was set up (no worktree announced), and none of its three ports stays leased.
    const workspace = (await readRunEvents(env.redis, env.keys, runId, '0', 1_000)).find(({ entry }) => entry.event.type === 'workspace');
    expect(workspace).toBeUndefined();
    expect(await leasesLeft(env)).toEqual([]);
  });
});
