import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { compiledEntry, packageRoot } from '../../shared/core/runtime/compiledEntry.js';
import { WORKER_NODE_FLAGS } from '../../shared/core/runtime/workerNodeFlags.js';
import { agentJobId } from '../../shared/infra/queue/agentQueue.js';
import { git, makeRepo } from '../support/gitRepo.js';
import { OrcaTestEnv, SLOW_TEST_MS } from '../support/orcaEnv.js';
import { reportTurn, scriptedJob, testRunId, toolTurn } from '../support/scriptedJobs.js';

/** `orca worker` as a user starts it: plain `node cli.js worker`, no V8 flags. */
function startOrcaWorker(env: OrcaTestEnv): { child: ChildProcess; stderr: () => string } {
  const child = spawn(process.execPath, [compiledEntry('coordinator/cli.ts'), 'worker', '--concurrency', '1'], {
    cwd: packageRoot(),
    env: env.processEnv(),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return { child, stderr: () => stderr };
}

/** A process's command line, from /proc. */
function commandLine(pid: number): string[] {
  return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
}

/** The environment a process was started with, from /proc. */
function startEnvironment(pid: number): string[] {
  return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
}

async function gone(pid: number, deadlineMs = 30_000): Promise<boolean> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    try {
      process.kill(pid, 0);
    } catch {
      return true;
    }
    if (Date.now() > deadline) return false;
    await sleep(50);
  }
}

describe('orca worker started by hand', { timeout: SLOW_TEST_MS }, () => {
  it('runs its agents in a process with the worker V8 flags, stops it on SIGTERM, and exits 0', async () => {
    const env = await OrcaTestEnv.open();
    const repo = makeRepo({ 'a.txt': 'a\n' });
    const base = git(repo, 'rev-parse', 'HEAD');
    const orca = startOrcaWorker(env);
    const runId = testRunId('cli-worker');
    await env.queue.add(
      scriptedJob({
        runId,
        taskId: 't1',
        repo: { path: repo },
        base,
        turns: [
          toolTurn('Write', { file_path: 'b.txt', content: 'b\n' }),
          toolTurn('Bash', { command: 'echo "${MALLOC_ARENA_MAX:-unset}" > arena.txt' }),
          reportTurn('wrote b'),
        ],
      }),
    );
    const result = await env.result(agentJobId(runId, 't1', 1));
    expect(result.status).toBe('completed');

    // The job ran in the child `orca worker` started, with the flags, not in orca worker itself.
    expect(result.pid).not.toBe(orca.child.pid);
    expect(commandLine(result.pid)).toEqual(expect.arrayContaining(WORKER_NODE_FLAGS));
    // Started with malloc held to two arenas, which its agents' commands do not inherit.
    expect(startEnvironment(result.pid)).toContain('MALLOC_ARENA_MAX=2');
    expect(git(repo, 'show', `${result.commit}:arena.txt`)).toBe('unset');

    orca.child.kill('SIGTERM');
    const [code] = (await once(orca.child, 'exit')) as [number | null];
    expect(code, orca.stderr()).toBe(0);
    expect(await gone(result.pid)).toBe(true);
    expect(orca.stderr()).toContain(`orca worker ${result.pid}: SIGTERM, stopping`);
  });

  it('takes its worker along when it is killed with SIGKILL', async () => {
    const env = await OrcaTestEnv.open();
    const orca = startOrcaWorker(env);
    for (let i = 0; i < 600 && !orca.stderr().includes('taking jobs'); i += 1) await sleep(50);
    const worker = Number(/orca worker (\d+): taking jobs/.exec(orca.stderr())?.[1]);
    expect(worker).toBeGreaterThan(0);
    expect(worker).not.toBe(orca.child.pid);

    orca.child.kill('SIGKILL');
    expect(await gone(worker)).toBe(true);
  });
});
