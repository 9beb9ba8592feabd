import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { readyWorktrees } from '../shared/core/git/poolFolder.js';
import { removeRunPools } from '../shared/core/git/poolRemoval.js';
import { repoKey } from '../shared/core/git/repoKey.js';
import { WorktreePool } from '../shared/core/git/worktreePool.js';
import { OrcaHome } from '../shared/core/runtime/orcaHome.js';
import { agentJobId } from '../shared/infra/queue/agentQueue.js';
import { BenchEnv, benchTempRoot } from './benchEnv.js';
import { makeLargeRepo } from './largeRepo.js';
import { reportTurn, scriptedAgentJob } from './runScript.js';
import { median, percentile, round } from './stats.js';

const exec = promisify(execFile);

/**
 * Start latency: from a job added to the queue to its agent's first model request, over `jobs`
 * worker jobs on the large repository, each needing a worktree and branch of its own, beside a
 * bare `git worktree add -b` of the same commit in the same repository.
 *
 * Two installations side by side, one worker process each taking one job at a time (so no job
 * waits behind another: what is measured is the start of a job, not queueing): one with the run's
 * pool of ready worktrees warmed, as the coordinator warms it at a run's start (its worker refills
 * it after each take; the next job is added once the pool is full again, as in a run whose pool
 * keeps up), and one without a pool (ORCA_POOL_SIZE=0), the cold figure. The add time is BullMQ's
 * own timestamp of the job; the first model request is read from the run's event stream: the
 * Scripted model answers at once (latency 0), so its first `usage` event marks the request to
 * within a millisecond. Reference, pooled and cold runs alternate, so a slow spell of the machine
 * falls on all three. Each job's worktree is removed by the worker when the agent changed nothing;
 * each reference worktree is removed untimed.
 */
export const START_TARGET = { p50: 0.25, p99: 1.0 };

export interface StartPhases {
  /** Added → workspace ready (queue pickup, ports, hooks, the worktree taken from the pool or added). */
  workspace_ms: number;
  /** Workspace ready → session started (harness: settings, hooks, tools, context). */
  harness_ms: number;
  /** Session started → first model request (the prompt layers and git status of the worktree). */
  first_request_ms: number;
}

export interface StartResult {
  /** With the pool warmed. */
  start_p50_ms: number;
  start_p99_ms: number;
  /** Without a pool (a `git worktree add` per job). */
  cold_p50_ms: number;
  cold_p99_ms: number;
  worktree_add_ms: number;
  worktree_add_p99_ms: number;
  /** START_TARGET × the bare add's median. */
  target_p50_ms: number;
  target_p99_ms: number;
  phases_p50: StartPhases;
  cold_phases_p50: StartPhases;
  /**
   * Each step of a pooled job's way to its agent (workers/runAgentJob.ts, ORCA_START_TRACE): the
   * median time from the job's add to the step's end, in the order the steps end.
   */
  steps_p50: Record<string, number>;
  /** Of the pooled installation's counted jobs, how many took a pooled worktree. */
  pooled_jobs: number;
  jobs: number;
}

interface Timing {
  /** When the job was added (BullMQ's timestamp). */
  added: number;
  start: number;
  phases: StartPhases;
  pooled: boolean;
}

export async function startBenchmark(
  repo: { dir: string; base: string },
  options: { jobs?: number; warmup?: number } = {},
): Promise<StartResult> {
  const jobs = options.jobs ?? 100;
  const warmup = options.warmup ?? 2;
  return BenchEnv.with((warm) =>
    BenchEnv.with(async (cold) => {
      const trace = path.join(warm.dir('trace'), 'start-marks.jsonl');
      await warm.startWorker({ concurrency: 1, env: { ORCA_START_TRACE: trace } });
      await cold.startWorker({ concurrency: 1, env: { ORCA_POOL_SIZE: '0' } });
      const refs = cold.dir('refs');
      const runId = `start-${warm.prefix.slice(-8)}`;
      const place = { runId, repo: realpathSync(repo.dir), base: repo.base };
      const home = new OrcaHome(warm.home);
      const folder = home.pool(runId, repoKey(place.repo));
      // The coordinator's part: the run's pool warmed at its start, to the worker's one slot.
      const coordinator = new WorktreePool(home, { slots: 1 });
      coordinator.warm(place);
      await coordinator.idle();
      await coordinator.close();
      const adds: number[] = [];
      const pooled: Timing[] = [];
      const unpooled: Timing[] = [];
      const added = new Map<string, number>();
      try {
        for (let i = 0; i < warmup + jobs; i += 1) {
          const counted = i >= warmup;
          await poolFilled(folder, 1);
          const add = await timedWorktreeAdd(repo, path.join(refs, `ref${i}`), `orca-bench-ref/${runId}-${i}`);
          const taskId = `j${String(i).padStart(3, '0')}`;
          const withPool = await timedStart(warm, runId, taskId, repo);
          if (counted) added.set(taskId, withPool.added);
          const without = await timedStart(cold, `${runId}-cold`, taskId, repo);
          if (counted) {
            adds.push(add);
            pooled.push(withPool);
            unpooled.push(without);
          }
        }
        await poolFilled(folder, 1);
      } finally {
        await removeRunPools(home, runId, [place.repo]);
      }
      const worktreeAdd = median(adds);
      return {
        start_p50_ms: round(
          percentile(
            pooled.map((t) => t.start),
            50,
          ),
        ),
        start_p99_ms: round(
          percentile(
            pooled.map((t) => t.start),
            99,
          ),
        ),
        cold_p50_ms: round(
          percentile(
            unpooled.map((t) => t.start),
            50,
          ),
        ),
        cold_p99_ms: round(
          percentile(
            unpooled.map((t) => t.start),
            99,
          ),
        ),
        worktree_add_ms: round(worktreeAdd),
        worktree_add_p99_ms: round(percentile(adds, 99)),
        target_p50_ms: round(START_TARGET.p50 * worktreeAdd),
        target_p99_ms: round(START_TARGET.p99 * worktreeAdd),
        phases_p50: phasesMedian(pooled),
        cold_phases_p50: phasesMedian(unpooled),
        steps_p50: stepsMedian(trace, added),
        pooled_jobs: pooled.filter((t) => t.pooled).length,
        jobs,
      };
    }),
  );
}

/** The start benchmark on a repository of `files` files of its own, and what making it cost. */
export interface LargeStartResult extends StartResult {
  files: number;
  /** Writing and committing the repository, before anything is measured. */
  setup_s: number;
}

/**
 * `startBenchmark` on a generated repository of 100,000 files (five times the usual large one),
 * made for it in a folder of its own and removed after. Fewer jobs: each bare `worktree add`
 * and each pool refill checks out 100,000 files.
 */
export async function largeStartBenchmark(options: { files?: number; jobs?: number } = {}): Promise<LargeStartResult> {
  const root = mkdtempSync(path.join(benchTempRoot(), 'orca-bench-start-large-'));
  try {
    const made = performance.now();
    const repo = makeLargeRepo(path.join(root, 'repo'), options.files ?? 100_000);
    const setup = (performance.now() - made) / 1000;
    const result = await startBenchmark(repo, { jobs: options.jobs ?? 20 });
    return { ...result, files: repo.files, setup_s: round(setup, 1) };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** One job from added to its first model request, with its phases and whether its worktree came from the pool. */
async function timedStart(env: BenchEnv, runId: string, taskId: string, repo: { dir: string; base: string }): Promise<Timing> {
  const job = await env.queue.add(scriptedAgentJob({ runId, taskId, repo: repo.dir, base: repo.base, turns: [reportTurn()] }));
  const result = await env.result(agentJobId(runId, taskId, 1));
  if (result.status !== 'completed') throw new Error(`start job ${taskId} ended ${result.status}: ${result.detail}`);
  const taskEvents = (await env.events(runId)).filter((entry) => entry.task_id === taskId).map((entry) => entry.event);
  const find = (type: string) => {
    const found = taskEvents.find((event) => event.type === type);
    if (!found) throw new Error(`start job ${taskId} recorded no ${type} event`);
    return found;
  };
  const at = (type: string) => find(type).at;
  const added = job.timestamp;
  return {
    added,
    start: at('usage') - added,
    phases: {
      workspace_ms: at('workspace') - added,
      harness_ms: at('session_start') - at('workspace'),
      first_request_ms: at('usage') - at('session_start'),
    },
    pooled: (find('workspace') as { pooled?: boolean }).pooled === true,
  };
}

function phasesMedian(timings: Timing[]): StartPhases {
  return {
    workspace_ms: round(median(timings.map((t) => t.phases.workspace_ms))),
    harness_ms: round(median(timings.map((t) => t.phases.harness_ms))),
    first_request_ms: round(median(timings.map((t) => t.phases.first_request_ms))),
  };
}

/** The median of each traced step's end, from its job's add, over the counted jobs (`added` by task), in the order the steps end. */
function stepsMedian(trace: string, added: Map<string, number>): Record<string, number> {
  const offsets = new Map<string, number[]>();
  const lines = existsSync(trace) ? readFileSync(trace, 'utf8').split('\n').filter(Boolean) : [];
  for (const line of lines) {
    const { task, marks } = JSON.parse(line) as { task: string; marks: [string, number][] };
    const from = added.get(task);
    if (from === undefined) continue;
    for (const [step, at] of marks) offsets.set(step, [...(offsets.get(step) ?? []), at - from]);
  }
  const steps = [...offsets].map(([step, values]) => [step, round(median(values))] as const);
  return Object.fromEntries(steps.sort((a, b) => a[1] - b[1]));
}

/** Waits (untimed) until the pool holds `size` ready worktrees again: the worker refills it after each take. */
async function poolFilled(folder: string, size: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (readyWorktrees(folder).length < size) {
    if (Date.now() > deadline) throw new Error(`the pool in ${folder} was not refilled within a minute`);
    await sleep(20);
  }
}

/** `git worktree add -q -b BRANCH DIR BASE` as orca's own call is made (a git process), timed; then removed, untimed. */
async function timedWorktreeAdd(repo: { dir: string; base: string }, dir: string, branch: string): Promise<number> {
  const start = performance.now();
  await exec('git', ['worktree', 'add', '--quiet', '-b', branch, dir, repo.base], { cwd: repo.dir });
  const elapsed = performance.now() - start;
  await exec('git', ['worktree', 'remove', '--force', '--force', dir], { cwd: repo.dir });
  await exec('git', ['branch', '--quiet', '-D', branch], { cwd: repo.dir });
  return elapsed;
}
