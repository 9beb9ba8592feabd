import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PortLeaser, parsePortLeaseOwner } from '../../shared/infra/ports/portLease.js';
import { agentJobId } from '../../shared/infra/queue/agentQueue.js';
import { isAborted } from '../../shared/infra/queue/runAbort.js';
import { commitFiles, git } from '../support/gitRepo.js';
import { OrcaTestEnv, SLOW_TEST_MS } from '../support/orcaEnv.js';
import { waitForNoProcess } from '../support/processTable.js';
import { reportTurn, scriptedJob, testRunId, toolTurn } from '../support/scriptedJobs.js';
import { sleeperCommand, sleepMarker, waitForSleeps } from '../support/sleepers.js';

function repoIn(orca: OrcaTestEnv): { repo: string; base: string } {
  const repo = orca.dir('repo');
  git(repo, 'init', '-q', '-b', 'main');
  return { repo, base: commitFiles(repo, { 'a.txt': 'a\n' }, 'initial') };
}

describe('cascaded abort', { timeout: SLOW_TEST_MS }, () => {
  it('orca abort RUN stops every job of the run on every worker, kills their shells, keeps their worktrees, frees their ports', async () => {
    const orca = await OrcaTestEnv.open();
    const { repo, base } = repoIn(orca);
    await Promise.all([orca.startWorker({ concurrency: 3 }), orca.startWorker({ concurrency: 3 })]);
    const runId = testRunId('abort');
    const tasks = ['t1', 't2', 't3', 't4'];
    const sleeps = tasks.map(() => sleepMarker());
    for (const [i, taskId] of tasks.entries()) {
      await orca.queue.add(
        scriptedJob({
          runId,
          taskId,
          repo: { path: repo },
          base,
          // Half in the bwrap sandbox, half not: both ways of running a shell must die.
          role: { sandbox: i % 2 === 0 },
          turns: [
            toolTurn('Write', { file_path: 'progress.txt', content: `${taskId} was here\n` }),
            toolTurn('Bash', { command: sleeperCommand(sleeps[i]!) }),
            reportTurn(),
          ],
        }),
      );
    }
    // A job of another run, busy until told to go: the abort must leave it alone.
    const otherRun = testRunId('other');
    const go = path.join(orca.dir('other'), 'go');
    await orca.queue.add(
      scriptedJob({
        runId: otherRun,
        taskId: 'o1',
        repo: { path: repo },
        base,
        role: { sandbox: false },
        env: { GO: go },
        turns: [toolTurn('Bash', { command: 'while [ ! -e "$GO" ]; do sleep 0.05; done' }), reportTurn('went on')],
      }),
    );
    await waitForSleeps(sleeps);

    const abort = await orca.cli(['abort', runId]);
    expect(abort.code, abort.stderr).toBe(0);
    expect(abort.stdout).toContain(`abort of run ${runId} published`);

    for (const value of sleeps) expect(await waitForNoProcess(value)).toEqual([]);
    const results = await Promise.all(tasks.map((taskId) => orca.result(agentJobId(runId, taskId, 1))));
    for (const result of results) {
      expect(result.status).toBe('aborted');
      // Kept for inspection, with the half-done work in it; nothing committed.
      expect(readFileSync(path.join(result.worktree!, 'progress.txt'), 'utf8')).toBe(`${result.task_id} was here\n`);
      expect(result.commit).toBeUndefined();
      expect(git(repo, 'rev-parse', `orca/${runId}/${result.task_id}`)).toBe(base);
    }
    const leaser = new PortLeaser(orca.redis, orca.keys);
    expect((await leaser.held()).filter((lease) => parsePortLeaseOwner(lease.owner).runId === runId)).toEqual([]);

    // The other run went on: still running, its lease still held; then it completes.
    expect(await orca.queue.queue.getJobState(agentJobId(otherRun, 'o1', 1))).toBe('active');
    expect((await leaser.held()).filter((lease) => parsePortLeaseOwner(lease.owner).runId === otherRun)).toHaveLength(2);
    writeFileSync(go, '');
    expect((await orca.result(agentJobId(otherRun, 'o1', 1))).status).toBe('completed');
    expect(await leaser.held()).toEqual([]);
  });

  it('a job that times out stops alone: its shell dies, the rest of its run completes, the run is not aborted', async () => {
    const orca = await OrcaTestEnv.open();
    const { repo, base } = repoIn(orca);
    await orca.startWorker({ concurrency: 3 });
    const runId = testRunId('timeout');
    const [commandSleep, wallSleep] = [sleepMarker(), sleepMarker()];
    const sibling = path.join(orca.dir('sibling'), 'go');
    await orca.queue.add(
      scriptedJob({
        runId,
        taskId: 'command-timeout',
        repo: { path: repo },
        base,
        turns: [toolTurn('Bash', { command: sleeperCommand(commandSleep), timeout: 1_000 }), reportTurn('my command timed out')],
      }),
    );
    await orca.queue.add(
      scriptedJob({
        runId,
        taskId: 'wall-clock',
        repo: { path: repo },
        base,
        role: { limits: { wallClockMs: 1_500 } },
        turns: [toolTurn('Bash', { command: sleeperCommand(wallSleep) }), reportTurn('unreachable')],
      }),
    );
    // The sibling waits until both others have ended, so it was running while they timed out.
    await orca.queue.add(
      scriptedJob({
        runId,
        taskId: 'sibling',
        repo: { path: repo },
        base,
        role: { sandbox: false },
        env: { GO: sibling },
        turns: [
          toolTurn('Bash', { command: 'while [ ! -e "$GO" ]; do sleep 0.05; done' }),
          toolTurn('Write', { file_path: 's.txt', content: 's\n' }),
          reportTurn('done'),
        ],
      }),
    );
    const commandTimeout = await orca.result(agentJobId(runId, 'command-timeout', 1));
    const wallClock = await orca.result(agentJobId(runId, 'wall-clock', 1));
    expect(await orca.queue.queue.getJobState(agentJobId(runId, 'sibling', 1))).toBe('active');
    writeFileSync(sibling, '');
    const siblingResult = await orca.result(agentJobId(runId, 'sibling', 1));

    // The command that timed out failed as a tool call; the agent went on and reported.
    expect(commandTimeout.status).toBe('completed');
    expect(commandTimeout.commands).toMatchObject([{ exit_code: null }]);
    // The agent out of time failed with its own reason, not as an abort of the run.
    expect(wallClock).toMatchObject({ status: 'failed', end_reason: 'wall_clock' });
    expect(existsSync(wallClock.worktree!)).toBe(true);
    for (const value of [commandSleep, wallSleep]) expect(await waitForNoProcess(value)).toEqual([]);
    expect(siblingResult.status).toBe('completed');
    expect(git(repo, 'show', `${siblingResult.commit}:s.txt`)).toBe('s');
    expect(await isAborted(orca.redis, orca.keys, runId)).toBe(false);
    expect(await new PortLeaser(orca.redis, orca.keys).held()).toEqual([]);
  });
});
