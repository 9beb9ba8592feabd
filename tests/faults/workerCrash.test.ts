import { existsSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { CHECK_COMMAND, makeRunRepo } from '../../bench/runScript.js';
import { agentJobId } from '../../shared/infra/queue/agentQueue.js';
import { connectRedis } from '../../shared/infra/redis/redisConnection.js';
import { git } from '../support/gitRepo.js';
import { OrcaTestEnv } from '../support/orcaEnv.js';
import { checkedWriter, is, OrcaProcess, waitForEntry, writeRunScript } from './faultRun.js';

/**
 * A worker process killed with SIGKILL in the middle of a job of an `orca run`. The first worker
 * runs with ORCA_TEST_HOLD set, which its agents' shells inherit: there task `held` half-writes a
 * file and waits; the worker that takes the job over goes straight on.
 */
describe('a worker killed mid-job during orca run', () => {
  it('has its job stall and retried by another worker; the run passes and the task branch has no duplicate commits', async () => {
    const env = await OrcaTestEnv.open();
    const repo = path.join(env.dir('repo'), 'project');
    const base = makeRunRepo(repo);
    // Should the dead worker's shell outlive it, it waits only while the dead attempt's worktree is
    // there: the retry removes that, so no test leaves a loop running on the machine.
    const hold = 'if [ -n "$ORCA_TEST_HOLD" ]; then echo partial > half.txt; while [ -e half.txt ]; do sleep 0.05; done; fi';
    const script = writeRunScript(env.dir('script'), [
      { id: 'quick', paths: ['src/quick.txt'], turns: checkedWriter('src/quick.txt') },
      {
        id: 'held',
        paths: ['src/held.txt'],
        turns: checkedWriter('src/held.txt', [{ tools: [{ name: 'Bash', input: { command: hold } }] }]),
      },
    ]);
    // A short lock, so the dead worker's job is found stalled within seconds.
    const lockDurationMs = 2_000;
    const first = await env.startWorker({ concurrency: 2, lockDurationMs, env: { ORCA_TEST_HOLD: '1' } });
    const stalled: string[] = [];
    const eventsConnection = connectRedis();
    const events = env.queue.events(eventsConnection);
    events.on('stalled', ({ jobId }) => stalled.push(jobId));
    await events.waitUntilReady();
    try {
      const run = new OrcaProcess(env, [
        'run',
        'two files',
        '--repo',
        repo,
        '--script',
        script,
        '--check',
        CHECK_COMMAND,
        '--json',
        '--no-local-workers',
      ]);
      const runId = await run.runId;
      await waitForEntry(env.redis, env.keys, runId, is.toolCall('held', 'Bash'), 'the held task reaching its shell');
      // The call's entry is written before its shell starts: the kill waits for the half-written file.
      await waitForHalfWritten(repo, runId);

      first.child.kill('SIGKILL');
      expect((await first.exited).signal).toBe('SIGKILL');
      const second = await env.startWorker({ concurrency: 2, lockDurationMs });

      const { code, json } = await run.json();
      expect(code, run.stderr).toBe(0);
      expect(json.status).toBe('PASS');
      const held = json.tasks.find((task) => task.id === 'held')!;
      // The coordinator saw one attempt: the queue retried the same job, on the other worker.
      expect(held).toMatchObject({ status: 'verified', attempts: 1 });
      const jobId = agentJobId(runId, 'held', 1);
      expect(stalled).toContain(jobId);
      const job = await env.queue.getJob(jobId);
      expect(job?.attemptsStarted).toBeGreaterThanOrEqual(2);
      expect(job?.returnvalue.pid).toBe(second.pid);

      // One commit on the task branch: the retry's. The dead attempt's half-written file is not in it.
      const commits = git(repo, 'log', '--format=%s', `${base}..${held.branch}`).split('\n').filter(Boolean);
      expect(commits).toEqual(['wrote src/held.txt']);
      expect(git(repo, 'ls-tree', '-r', '--name-only', held.branch!).split('\n').sort()).toEqual(['README.md', 'check.sh', 'src/held.txt']);
      // It was saved under the task's work-in-progress ref before the retry replaced the dead attempt's worktree.
      expect(git(repo, 'show', `refs/orca/wip/${runId}/held:half.txt`)).toBe('partial');
      // Merged once into the integration branch, beside the other task.
      const merges = git(repo, 'log', '--merges', '--format=%s', `${base}..${json.integration_branch}`).split('\n').filter(Boolean);
      expect(merges.filter((subject) => subject.startsWith('Merge held'))).toHaveLength(1);
      expect(merges).toHaveLength(2);
      expect(git(repo, 'show', `${json.integration_branch}:src/held.txt`)).toBe('src/held.txt written');
      // The user's checkout is untouched.
      expect(git(repo, 'rev-parse', 'HEAD')).toBe(base);
      expect(git(repo, 'status', '--porcelain')).toBe('');
    } finally {
      await events.close();
      eventsConnection.disconnect();
    }
  });
});

/** Polls until the held task's worktree (on branch orca/<run>/held) holds half.txt. */
async function waitForHalfWritten(repo: string, runId: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const blocks = git(repo, 'worktree', 'list', '--porcelain').split('\n\n');
    const held = blocks.find((block) => block.includes(`branch refs/heads/orca/${runId}/held`));
    const dir = held && /^worktree (.+)$/m.exec(held)?.[1];
    if (dir && existsSync(path.join(dir, 'half.txt'))) return;
    if (Date.now() > deadline) throw new Error(`run ${runId}: the held task never wrote half.txt`);
    await sleep(50);
  }
}
