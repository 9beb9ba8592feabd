import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PortLeaser } from '../../shared/infra/ports/portLease.js';
import { agentJobId } from '../../shared/infra/queue/agentQueue.js';
import { commitFiles, git } from '../support/gitRepo.js';
import { OrcaTestEnv, SLOW_TEST_MS } from '../support/orcaEnv.js';
import { waitForNoProcess } from '../support/processTable.js';
import { reportTurn, scriptedJob, testRunId, toolTurn } from '../support/scriptedJobs.js';
import { sleepMarker, waitForSleeps } from '../support/sleepers.js';

/**
 * A worker that stops or dies mid-job. The first worker runs with ORCA_TEST_HOLD set, which its
 * agents' shells inherit: there the script half-writes a file and hangs; on the worker that takes
 * the job over the same script goes straight on.
 */
const HOLD = { ORCA_TEST_HOLD: '1' };

function repoIn(orca: OrcaTestEnv): { repo: string; base: string } {
  const repo = orca.dir('repo');
  git(repo, 'init', '-q', '-b', 'main');
  return { repo, base: commitFiles(repo, { 'a.txt': 'a\n' }, 'initial') };
}

function commitsOn(repo: string, base: string, branch: string): string[] {
  return git(repo, 'log', '--format=%s', `${base}..${branch}`).split('\n').filter(Boolean);
}

function filesOn(repo: string, branch: string): string[] {
  return git(repo, 'ls-tree', '-r', '--name-only', branch).split('\n').sort();
}

describe('a worker process that stops mid-job', { timeout: SLOW_TEST_MS }, () => {
  it('on SIGTERM stops taking jobs, kills its agents’ shells, releases worktree and ports, exits 0, and hands the job back', async () => {
    const orca = await OrcaTestEnv.open();
    const { repo, base } = repoIn(orca);
    const first = await orca.startWorker({ concurrency: 1, env: HOLD });
    const runId = testRunId('sigterm');
    const sleep = sleepMarker();
    const jobId = agentJobId(runId, 't1', 1);
    await orca.queue.add(
      scriptedJob({
        runId,
        taskId: 't1',
        repo: { path: repo },
        base,
        turns: [
          toolTurn('Bash', {
            command: `if [ -n "$ORCA_TEST_HOLD" ]; then echo partial > half.txt; bash -c "sleep ${sleep}; echo unreachable"; fi`,
          }),
          toolTurn('Write', { file_path: 'done.txt', content: 'done\n' }),
          reportTurn('done'),
        ],
      }),
    );
    await waitForSleeps([sleep]);
    const worktree = path.join(orca.home, 'worktrees', runId, 't1');
    expect(existsSync(path.join(worktree, 'half.txt'))).toBe(true);

    first.child.kill('SIGTERM');
    expect(await first.exited).toEqual({ code: 0, signal: null });
    expect(first.stderr).toContain('SIGTERM, stopping (1 job(s) running)');
    expect(await waitForNoProcess(sleep)).toEqual([]);
    // Back on the queue, not failed; its worktree and ports released.
    expect(['waiting', 'delayed']).toContain(await orca.queue.queue.getJobState(jobId));
    expect(await new PortLeaser(orca.redis, orca.keys).held()).toEqual([]);
    expect(existsSync(worktree)).toBe(false);
    // What the agent had written is saved under the task's work-in-progress ref before its worktree went.
    expect(git(repo, 'show', `refs/orca/wip/${runId}/t1:half.txt`)).toBe('partial');
    expect(git(repo, 'rev-parse', `refs/orca/wip/${runId}/t1^`)).toBe(base);

    const second = await orca.startWorker({ concurrency: 1 });
    const result = await orca.result(jobId);
    expect(result).toMatchObject({ status: 'completed', pid: second.pid });
    expect(commitsOn(repo, base, result.branch!)).toHaveLength(1);
    expect(filesOn(repo, result.branch!)).toEqual(['a.txt', 'done.txt']);
  });
});

describe('a worker process killed mid-job', { timeout: SLOW_TEST_MS }, () => {
  it('has its jobs taken over after the stalled check: from the base, or from the last commit on the task branch, never from the half-written tree', async () => {
    const orca = await OrcaTestEnv.open();
    const { repo, base } = repoIn(orca);
    const lockDurationMs = 2_000;
    const first = await orca.startWorker({ concurrency: 2, lockDurationMs, env: HOLD });
    const runId = testRunId('sigkill');
    const [freshSleep, resumeSleep] = [sleepMarker(), sleepMarker()];
    // `fresh` dies with only a half-written file; `resume` first commits a step on its branch.
    await orca.queue.add(
      scriptedJob({
        runId,
        taskId: 'fresh',
        repo: { path: repo },
        base,
        turns: [
          toolTurn('Bash', {
            command: `if [ -n "$ORCA_TEST_HOLD" ]; then echo partial > half.txt; bash -c "sleep ${freshSleep}; echo unreachable"; fi`,
          }),
          toolTurn('Write', { file_path: 'done.txt', content: 'done\n' }),
          reportTurn('fresh done'),
        ],
      }),
    );
    await orca.queue.add(
      scriptedJob({
        runId,
        taskId: 'resume',
        repo: { path: repo },
        base,
        // Unsandboxed so the agent's own git can write the repository's objects and refs.
        role: { sandbox: false },
        turns: [
          toolTurn('Bash', {
            command:
              'if [ -n "$ORCA_TEST_HOLD" ]; then echo one > step1.txt && git add step1.txt && git -c user.name=a -c user.email=a@a commit -qm "step 1" && ' +
              `echo partial > half.txt && bash -c "sleep ${resumeSleep}; echo unreachable"; fi`,
          }),
          toolTurn('Write', { file_path: 'done.txt', content: 'done\n' }),
          reportTurn('resume done'),
        ],
      }),
    );
    await waitForSleeps([freshSleep, resumeSleep]);
    first.child.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');

    // The one that takes over has an ORCA_HOME of its own: the dead worktrees are not in its way.
    const second = await orca.startWorker({ concurrency: 2, lockDurationMs, home: orca.dir('other-home') });
    const fresh = await orca.result(agentJobId(runId, 'fresh', 1));
    const resume = await orca.result(agentJobId(runId, 'resume', 1));
    for (const result of [fresh, resume]) expect(result).toMatchObject({ status: 'completed', pid: second.pid });

    // From the base: one commit, the dead attempt's half-written file gone.
    expect(commitsOn(repo, base, fresh.branch!)).toEqual(['fresh done']);
    expect(filesOn(repo, fresh.branch!)).toEqual(['a.txt', 'done.txt']);
    // From the dead attempt's last commit: that commit once, then the new one; no half-written file.
    expect(commitsOn(repo, base, resume.branch!)).toEqual(['resume done', 'step 1']);
    expect(filesOn(repo, resume.branch!)).toEqual(['a.txt', 'done.txt', 'step1.txt']);
    expect(resume.files_changed).toEqual(['done.txt', 'step1.txt']);
    // The dead attempts' worktrees, which still held the branches, are gone.
    for (const taskId of ['fresh', 'resume']) expect(existsSync(path.join(orca.home, 'worktrees', runId, taskId))).toBe(false);
    // Their half-written trees were saved first, each on top of the commit it stood on.
    for (const taskId of ['fresh', 'resume']) expect(git(repo, 'show', `refs/orca/wip/${runId}/${taskId}:half.txt`)).toBe('partial');
    expect(git(repo, 'rev-parse', `refs/orca/wip/${runId}/fresh^`)).toBe(base);
    expect(git(repo, 'log', '-1', '--format=%s', `refs/orca/wip/${runId}/resume^`)).toBe('step 1');
  });
});
