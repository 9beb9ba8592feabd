import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { agentJobId } from '../shared/infra/queue/agentQueue.js';
import { BenchEnv } from './benchEnv.js';
import { reportTurn, scriptedAgentJob } from './runScript.js';
import { median, percentile, round } from './stats.js';

const exec = promisify(execFile);

/**
 * Start latency: from a job added to the queue to its agent's first model request, over `jobs`
 * worker jobs on the large repository, each needing a worktree and branch of its own, beside a
 * bare `git worktree add -b` of the same commit in the same repository.
 *
 * One worker process takes one job at a time, so no job waits behind another: what is measured is
 * the start of a job, not queueing. The add time is BullMQ's own timestamp of the job; the first
 * model request is read from the run's event stream: the Scripted model answers at once (latency
 * 0), so its first `usage` event marks the request to within a millisecond. Reference and job runs
 * alternate, so a slow spell of the machine falls on both. Each job's worktree is removed by the
 * worker when the agent changed nothing; each reference worktree is removed untimed.
 */
export const START_TARGET = { factor: 1.1, plusMs: 50 };

export interface StartPhases {
  /** Added → workspace ready (queue pickup, ports, hooks, `git worktree add`). */
  workspace_ms: number;
  /** Workspace ready → session started (harness: settings, hooks, tools, context). */
  harness_ms: number;
  /** Session started → first model request (the prompt layers and git status of the worktree). */
  first_request_ms: number;
}

export interface StartResult {
  start_p50_ms: number;
  start_p99_ms: number;
  worktree_add_ms: number;
  worktree_add_p99_ms: number;
  target_ms: number;
  phases_p50: StartPhases;
  jobs: number;
}

export async function startBenchmark(
  repo: { dir: string; base: string },
  options: { jobs?: number; warmup?: number } = {},
): Promise<StartResult> {
  const jobs = options.jobs ?? 100;
  const warmup = options.warmup ?? 2;
  return BenchEnv.with(async (env) => {
    await env.startWorker({ concurrency: 1 });
    const refs = env.dir('refs');
    const runId = `start-${env.prefix.slice(-8)}`;
    const starts: number[] = [];
    const adds: number[] = [];
    const phases: StartPhases[] = [];
    for (let i = 0; i < warmup + jobs; i += 1) {
      const counted = i >= warmup;
      const add = await timedWorktreeAdd(repo, path.join(refs, `ref${i}`), `orca-bench-ref/${runId}-${i}`);
      if (counted) adds.push(add);

      const taskId = `j${String(i).padStart(3, '0')}`;
      const job = await env.queue.add(scriptedAgentJob({ runId, taskId, repo: repo.dir, base: repo.base, turns: [reportTurn()] }));
      const result = await env.result(agentJobId(runId, taskId, 1));
      if (result.status !== 'completed') throw new Error(`start job ${taskId} ended ${result.status}: ${result.detail}`);
      const at = (type: string) => {
        const found = taskEvents.find((event) => event.type === type);
        if (!found) throw new Error(`start job ${taskId} recorded no ${type} event`);
        return found.at;
      };
      const taskEvents = (await env.events(runId)).filter((entry) => entry.task_id === taskId).map((entry) => entry.event);
      const added = job.timestamp;
      if (counted) {
        starts.push(at('usage') - added);
        phases.push({
          workspace_ms: at('workspace') - added,
          harness_ms: at('session_start') - at('workspace'),
          first_request_ms: at('usage') - at('session_start'),
        });
      }
    }
    const worktreeAdd = median(adds);
    return {
      start_p50_ms: round(percentile(starts, 50)),
      start_p99_ms: round(percentile(starts, 99)),
      worktree_add_ms: round(worktreeAdd),
      worktree_add_p99_ms: round(percentile(adds, 99)),
      target_ms: round(START_TARGET.factor * worktreeAdd + START_TARGET.plusMs),
      phases_p50: {
        workspace_ms: round(median(phases.map((p) => p.workspace_ms))),
        harness_ms: round(median(phases.map((p) => p.harness_ms))),
        first_request_ms: round(median(phases.map((p) => p.first_request_ms))),
      },
      jobs,
    };
  });
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
