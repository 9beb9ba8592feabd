import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { CHECK_COMMAND, makeRunRepo } from '../../bench/runScript.js';
import { compiledEntry, packageRoot } from '../../shared/core/runtime/compiledEntry.js';
import { agentJobId } from '../../shared/infra/queue/agentQueue.js';
import { TmuxTerminal } from '../asks/tmuxTerminal.js';
import { git } from '../support/gitRepo.js';
import { OrcaTestEnv, SLOW_TEST_MS } from '../support/orcaEnv.js';
import { sleeperCommand, sleepMarker, waitForSleeps } from '../support/sleepers.js';
import { writeRunScript } from './faultRun.js';

/**
 * Ctrl-C ends a run, always: a terminal sends SIGINT to the whole foreground process group, so
 * the test starts `orca run` as the leader of a group of its own and signals the group, while a
 * worker's Bash sleeps, or while its job waits for a worker that never comes. The run ends ABORTED
 * with exit 130, the agent's work is kept, and nothing of the run is left running or queued.
 */

/** The contract: a Ctrl-C'd run is over within 10 s (a slow machine's margin is in it). */
const CTRL_C_ENDS_WITHIN_MS = 10_000;

const groups: ChildProcess[] = [];
afterEach(async () => {
  for (const child of groups.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    process.kill(-child.pid!, 'SIGKILL');
    await once(child, 'close');
  }
});

interface Started {
  child: ChildProcess;
  runId: string;
  output: () => string;
  closed: Promise<number | string>;
}

/** `orca ARGS` as the leader of a process group of its own, as a shell starts a foreground job. */
async function startInGroup(env: OrcaTestEnv, args: string[]): Promise<Started> {
  const child = spawn(process.execPath, [compiledEntry('coordinator/cli.ts'), ...args], {
    cwd: packageRoot(),
    env: env.processEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  groups.push(child);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  // The exit code, or the signal that ended it.
  const closed = once(child, 'close').then(([code, signal]) => (code as number | null) ?? (signal as string));
  for (;;) {
    const match = /^orca: run (\S+)$/m.exec(output);
    if (match) return { child, runId: match[1]!, output: () => output, closed };
    if (child.exitCode !== null) throw new Error(`orca exited without a run id:\n${output}`);
    await sleep(50);
  }
}

/** A run whose one worker writes progress.txt, then sleeps in its shell until it is stopped. */
function sleepingRun(env: OrcaTestEnv): { repo: string; args: string[]; marker: string } {
  const repo = path.join(env.dir('repo'), 'project');
  makeRunRepo(repo);
  const marker = sleepMarker();
  const script = writeRunScript(env.dir('script'), [
    {
      id: 'one',
      paths: ['progress.txt'],
      turns: [
        { tools: [{ name: 'Write', input: { file_path: 'progress.txt', content: 'half done\n' } }] },
        { tools: [{ name: 'Bash', input: { command: sleeperCommand(marker) } }] },
        { tools: [{ name: 'Report', input: { summary: 'never reached', unresolved: [], claimed_checks: [] } }] },
      ],
    },
  ]);
  return { repo, marker, args: ['run', 'a task', '--repo', repo, '--script', script, '--check', CHECK_COMMAND, '--workers', '1'] };
}

/** The env's jobs still waiting for a worker or running, by state (none: `{}`). */
async function jobsLeft(env: OrcaTestEnv): Promise<Record<string, number>> {
  const counts = await env.queue.queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'paused', 'waiting-children');
  return Object.fromEntries(Object.entries(counts).filter(([, n]) => n > 0));
}

/** What must hold once a Ctrl-C'd run has ended: ABORTED, its work kept, nothing of it running or queued. */
async function expectCleanlyAborted(env: OrcaTestEnv, repo: string, runId: string): Promise<void> {
  const status = await env.cli(['status', runId, '--json']);
  const board = JSON.parse(status.stdout) as {
    run: { state: string; phase: string };
    tasks: Array<{ task_id: string; worktree?: string }>;
  };
  expect(board.run).toMatchObject({ state: 'ABORTED', phase: 'done' });
  // The agent's half-done work is kept: in its worktree, handed over for inspection.
  const worktree = board.tasks.find((task) => task.task_id === 'one')?.worktree;
  expect(
    worktree && existsSync(path.join(worktree, 'progress.txt')) && readFileSync(path.join(worktree, 'progress.txt'), 'utf8'),
    JSON.stringify(board.tasks, null, 1),
  ).toBe('half done\n');
  expect(await jobsLeft(env)).toEqual({});
  expect(env.processesOfThisEnv()).toEqual([]);
  // The run ended as any run ends: the integration worktree is gone, its branch kept as the run's result.
  expect(git(repo, 'worktree', 'list', '--porcelain')).not.toContain(`${runId}/integration`);
}

describe('Ctrl-C', { timeout: SLOW_TEST_MS }, () => {
  it('sent to the process group of orca run while a Bash sleeps: exit 130 soon, ABORTED, nothing left running or queued', async () => {
    const env = await OrcaTestEnv.open();
    const { repo, args, marker } = sleepingRun(env);
    const run = await startInGroup(env, args);
    await waitForSleeps([marker]);

    process.kill(-run.child.pid!, 'SIGINT');
    const code = await Promise.race([run.closed, sleep(CTRL_C_ENDS_WITHIN_MS).then(() => 'still running' as const)]);
    expect(code, run.output()).toBe(130);
    expect(run.output()).toMatch(/stopping the run: interrupted by the user \(Ctrl-C\)/);
    await expectCleanlyAborted(env, repo, run.runId);
  });

  it('pressed in a real terminal (tmux) while a Bash sleeps: exit 130, ABORTED, nothing left running or queued', async () => {
    const env = await OrcaTestEnv.open();
    const { repo, args, marker } = sleepingRun(env);
    const terminal = TmuxTerminal.start(env, args);
    const runId = (await terminal.shows(/^orca: run (\S+)$/m))[1]!;
    await waitForSleeps([marker]);

    terminal.interrupt();
    expect((await terminal.shows(/^EXIT=(\d+)$/m))[1], terminal.screen()).toBe('130');
    expect(terminal.screen()).toContain('stopping the run: interrupted by the user (Ctrl-C)');
    await expectCleanlyAborted(env, repo, runId);
  });

  it('a run whose coordinator died is aborted and cleaned from another process', async () => {
    const env = await OrcaTestEnv.open();
    const { repo, args, marker } = sleepingRun(env);
    const run = await startInGroup(env, args);
    await waitForSleeps([marker]);
    run.child.kill('SIGKILL');
    await run.closed;
    // Its workers go with it (they hand their job back); nothing will end the run now.
    while (env.processesOfThisEnv().length > 0) await sleep(50);

    const abort = await env.cli(['abort', run.runId]);
    expect(abort.code, abort.stderr).toBe(0);
    expect(abort.stdout).toMatch(
      new RegExp(`^orca: run ${run.runId} had no coordinator: ended ABORTED here, \\d+ job\\(s\\) no worker held removed`, 'm'),
    );
    const board = JSON.parse((await env.cli(['status', run.runId, '--json'])).stdout) as { run: { state: string; detail: string } };
    expect(board.run).toMatchObject({ state: 'ABORTED', detail: 'orca abort (its coordinator was not running)' });
    expect(await jobsLeft(env)).toEqual({});

    const clean = await env.cli(['clean'], { cwd: repo });
    expect(clean.code, clean.stderr).toBe(0);
    expect(clean.stdout).not.toContain(`kept run ${run.runId}`);
    // The agent's half-done work was saved before its worktree went, as orca clean saves any.
    expect(git(repo, 'show', `refs/orca/wip/${run.runId}/one:progress.txt`)).toBe('half done');
    expect(git(repo, 'worktree', 'list', '--porcelain')).not.toContain(run.runId);
  });

  it("sent while the run's job waits for a worker that never comes (none running): exit 130 soon, ABORTED, the job taken off the queue", async () => {
    const env = await OrcaTestEnv.open();
    const { args } = sleepingRun(env);
    const run = await startInGroup(env, [...args, '--no-local-workers']);
    const coordinatorJob = agentJobId(run.runId, '_coordinator', 1);
    while ((await env.queue.queue.getJobState(coordinatorJob)) !== 'waiting') await sleep(50);

    process.kill(-run.child.pid!, 'SIGINT');
    const code = await Promise.race([run.closed, sleep(CTRL_C_ENDS_WITHIN_MS).then(() => 'still running' as const)]);
    expect(code, run.output()).toBe(130);
    expect(run.output()).toContain(
      '_coordinator: aborted (the run was aborted (interrupted by the user (Ctrl-C)) before a worker took its job)',
    );
    const board = JSON.parse((await env.cli(['status', run.runId, '--json'])).stdout) as { run: { state: string; phase: string } };
    expect(board.run).toMatchObject({ state: 'ABORTED', phase: 'done' });
    expect(await jobsLeft(env)).toEqual({});
  });

  it('a second Ctrl-C ends the CLI at once', async () => {
    const env = await OrcaTestEnv.open();
    const { args, marker } = sleepingRun(env);
    const run = await startInGroup(env, args);
    await waitForSleeps([marker]);

    process.kill(-run.child.pid!, 'SIGINT');
    while (!run.output().includes('Ctrl-C again to leave at once')) await sleep(10);
    process.kill(-run.child.pid!, 'SIGINT');
    expect(await run.closed, run.output()).toBe(130);
    // Its workers, left at once, still hand their job back and go: nothing of it stays running.
    while (env.processesOfThisEnv().length > 0) await sleep(50);
  });
});
