import { describe, expect, it } from 'vitest';
import { JobWaiter } from '../../coordinator/jobWaiter.js';
import { agentJobId } from '../../shared/infra/queue/agentQueue.js';
import { connectRedis } from '../../shared/infra/redis/redisConnection.js';
import { commitFiles, git } from '../support/gitRepo.js';
import { OrcaTestEnv, SLOW_TEST_MS } from '../support/orcaEnv.js';
import { reportTurn, scriptedJob, testRunId, toolTurn } from '../support/scriptedJobs.js';
import { sleeperCommand, sleepMarker, waitForSleeps } from '../support/sleepers.js';

/**
 * The coordinator's wait for a job is driven by the queue's events, with no poll of the job's
 * state each second. These waiters poll once a day: whatever ends their wait here is an event, so
 * a missed one fails the test (by its deadline) instead of being covered by the poll.
 */
const NO_POLL_MS = 24 * 3_600_000;

async function eventsWaiter(orca: OrcaTestEnv): Promise<{ waiter: JobWaiter; close: () => Promise<void> }> {
  const connection = connectRedis();
  const events = orca.queue.events(connection, await orca.queue.lastEventId());
  await events.waitUntilReady();
  return {
    waiter: new JobWaiter(orca.queue, events, NO_POLL_MS),
    close: async () => {
      await events.close();
      connection.disconnect();
    },
  };
}

/**
 * The wait's outcome, or NOT_WOKEN past a generous deadline (a safety net for a loaded machine,
 * not a measure of speed). No abort signal: an aborted wait reads the job's state once more, which
 * would hide a missed event.
 */
const NOT_WOKEN = 'no event ended the wait';
async function outcome<T>(wait: Promise<T>, deadlineMs = 240_000): Promise<T | string> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(NOT_WOKEN), deadlineMs);
  });
  try {
    return await Promise.race([wait.catch((error: Error) => error.message), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

function repoIn(orca: OrcaTestEnv): { repo: string; base: string } {
  const repo = orca.dir('repo');
  git(repo, 'init', '-q', '-b', 'main');
  return { repo, base: commitFiles(repo, { 'a.txt': 'a\n' }, 'initial') };
}

describe('the coordinator waiting for a job on events alone', { timeout: SLOW_TEST_MS }, () => {
  it('still notices the job of a worker killed mid-job: it hears it end on the worker that took it over', async () => {
    const orca = await OrcaTestEnv.open();
    const { repo, base } = repoIn(orca);
    const { waiter, close } = await eventsWaiter(orca);
    try {
      // A short lock, so the dead worker's job is found stalled within seconds.
      const lockDurationMs = 2_000;
      const first = await orca.startWorker({ concurrency: 1, lockDurationMs, env: { ORCA_TEST_HOLD: '1' } });
      const runId = testRunId('waitdead');
      const sleep = sleepMarker();
      const jobId = agentJobId(runId, 't1', 1);
      await orca.queue.add(
        scriptedJob({
          runId,
          taskId: 't1',
          repo: { path: repo },
          base,
          turns: [
            toolTurn('Bash', { command: `if [ -n "$ORCA_TEST_HOLD" ]; then ${sleeperCommand(sleep)}; fi` }),
            toolTurn('Write', { file_path: 'done.txt', content: 'done\n' }),
            reportTurn('done'),
          ],
        }),
      );
      // Waiting from before the worker dies, as `orca run` does.
      const result = outcome(waiter.wait(jobId));
      await waitForSleeps([sleep]);
      first.child.kill('SIGKILL');
      expect((await first.exited).signal).toBe('SIGKILL');

      const second = await orca.startWorker({ concurrency: 1, lockDurationMs, home: orca.dir('other-home') });
      expect(await result).toMatchObject({ status: 'completed', pid: second.pid });
    } finally {
      await close();
    }
  });

  it('ends the wait for a job removed from the queue, naming it', async () => {
    const orca = await OrcaTestEnv.open();
    const { repo, base } = repoIn(orca);
    const { waiter, close } = await eventsWaiter(orca);
    try {
      // No worker: the job waits in the queue until it is removed (as `orca abort` removes an orphaned run's jobs).
      const runId = testRunId('waitgone');
      const jobId = agentJobId(runId, 't1', 1);
      const job = await orca.queue.add(scriptedJob({ runId, taskId: 't1', repo: { path: repo }, base, turns: [reportTurn('done')] }));
      const ended = outcome(waiter.wait(jobId));
      expect(await orca.queue.queue.getJobState(jobId)).toBe('waiting');
      await job.remove();
      expect(await ended).toBe(`job ${jobId} is gone from the queue`);
    } finally {
      await close();
    }
  });

  it('returns at once for a job that ended before the wait began', async () => {
    const orca = await OrcaTestEnv.open();
    const { repo, base } = repoIn(orca);
    await orca.startWorker({ concurrency: 1 });
    const runId = testRunId('waitdone');
    const jobId = agentJobId(runId, 't1', 1);
    await orca.queue.add(scriptedJob({ runId, taskId: 't1', repo: { path: repo }, base, turns: [reportTurn('done')] }));
    // orca's own waiter (a quick poll) sees it finish; a waiter opened after that has no event to hear.
    expect(await orca.result(jobId)).toMatchObject({ status: 'completed' });
    const { waiter, close } = await eventsWaiter(orca);
    try {
      expect(await outcome(waiter.wait(jobId))).toMatchObject({ status: 'completed' });
    } finally {
      await close();
    }
  });
});
