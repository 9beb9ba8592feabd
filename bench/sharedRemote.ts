import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import getPort from 'get-port';
import { SharedRun } from '../coordinator/run/sharedRun.js';
import { orcaBranch } from '../shared/core/git/orcaBranch.js';
import { agentJobId } from '../shared/infra/queue/agentQueue.js';
import { BenchEnv } from './benchEnv.js';
import { makeRunRepo, reportTurn, scriptedAgentJob } from './runScript.js';
import { median, round } from './stats.js';

/**
 * 64 scripted agents over 4 worker processes (each its own ORCA_HOME, as if on its own host), once
 * on the local path (jobs name the repository's folder) and once on a shared remote (jobs name a
 * git:// URL served by `git daemon` on loopback: each job fetches into its worker's clone and
 * pushes its branch back, and the coordinator fetches each branch before it could merge). The
 * model answers at once, so what is measured is orca's own cost per job. Figures: jobs per minute
 * each way; per job, the median time a worker holds it (BullMQ's processedOn → finishedOn) each way,
 * whose difference is the fetch/push round trip; the coordinator's fetch of a finished branch.
 */
export interface SharedRemoteResult {
  agents: number;
  workers: number;
  local_jobs_per_minute: number;
  shared_jobs_per_minute: number;
  local_job_ms: number;
  shared_job_ms: number;
  /** shared_job_ms − local_job_ms (medians) with all agents at once: the git work of a shared job, contention included. */
  round_trip_ms_per_job: number;
  /** One job alone (median of 5, one after another), each way: the fetch/push round trip without contention. */
  solo_local_job_ms: number;
  solo_shared_job_ms: number;
  /** The coordinator's fetch of one finished branch from the shared remote. */
  coordinator_fetch_ms: number;
  /** Pushing the base to the remote once per run. */
  publish_ms: number;
  not_completed: number;
}

export async function sharedRemoteBenchmark(options: { agents?: number; workers?: number } = {}): Promise<SharedRemoteResult> {
  const agents = options.agents ?? 64;
  const workers = options.workers ?? 4;
  return BenchEnv.with(async (env) => {
    const repo = env.dir('repo');
    const base = makeRunRepo(repo, { 'README.md': '# shared\n', 'src/shared.txt': 'shared\n' });
    const served = env.dir('served');
    execFileSync('git', ['init', '-q', '--bare', `${served}/bench.git`]);
    const daemon = await startGitDaemon(served);
    try {
      for (let i = 0; i < workers; i += 1)
        await env.startWorker({ concurrency: Math.ceil(agents / workers), env: { ORCA_HOME: env.dir(`host-${i}`) } });
      const runId = `shared-${env.prefix.slice(-8)}`;
      const shared = new SharedRun(`${daemon.url}/bench.git`, repo, runId);
      const publishStart = performance.now();
      await shared.publish(base);
      const publishMs = performance.now() - publishStart;
      // Alone first (each worker's clone made by its first shared job, not counted): the round trip itself.
      await batch(env, { agents: workers, base, repo: { remote: shared.url }, runId, tasks: 'warm' });
      const soloLocal: number[] = [];
      const soloShared: number[] = [];
      for (let i = 0; i < 5; i += 1) {
        soloLocal.push(
          ...(await batch(env, { agents: 1, base, repo: { path: repo }, runId: `solo-local-${env.prefix.slice(-8)}`, tasks: `solo${i}-` }))
            .jobMs,
        );
        soloShared.push(...(await batch(env, { agents: 1, base, repo: { remote: shared.url }, runId, tasks: `solo${i}-` })).jobMs);
      }
      const local = await batch(env, { agents, base, repo: { path: repo }, runId: `local-${env.prefix.slice(-8)}` });
      const remote = await batch(env, { agents, base, repo: { remote: shared.url }, runId });
      const fetchMs: number[] = [];
      for (const result of remote.results) {
        const start = performance.now();
        await shared.fetchTask(result.task_id, orcaBranch(runId, result.task_id), result.commit!);
        fetchMs.push(performance.now() - start);
      }
      return {
        agents,
        workers,
        local_jobs_per_minute: round((agents / local.wallMs) * 60_000, 1),
        shared_jobs_per_minute: round((agents / remote.wallMs) * 60_000, 1),
        local_job_ms: round(median(local.jobMs), 1),
        shared_job_ms: round(median(remote.jobMs), 1),
        round_trip_ms_per_job: round(median(remote.jobMs) - median(local.jobMs), 1),
        solo_local_job_ms: round(median(soloLocal), 1),
        solo_shared_job_ms: round(median(soloShared), 1),
        coordinator_fetch_ms: round(median(fetchMs), 1),
        publish_ms: round(publishMs, 1),
        not_completed: [...local.results, ...remote.results].filter((result) => result.status !== 'completed' || !result.commit).length,
      };
    } finally {
      await daemon.stop();
    }
  });
}

async function batch(
  env: BenchEnv,
  options: { agents: number; base: string; repo: { path: string } | { remote: string }; runId: string; tasks?: string },
) {
  const ids = Array.from({ length: options.agents }, (_, i) => `${options.tasks ?? 'a'}${String(i).padStart(2, '0')}`);
  const started = performance.now();
  await Promise.all(
    ids.map((taskId) =>
      env.queue.add(
        scriptedAgentJob({
          runId: options.runId,
          taskId,
          repo: options.repo,
          base: options.base,
          role: { sandbox: false },
          turns: [{ tools: [{ name: 'Write', input: { file_path: `out/${taskId}.txt`, content: `${taskId}\n` } }] }, reportTurn(taskId)],
        }),
      ),
    ),
  );
  const results = await Promise.all(ids.map((taskId) => env.result(agentJobId(options.runId, taskId, 1), 900_000)));
  const wallMs = performance.now() - started;
  const jobMs: number[] = [];
  for (const taskId of ids) {
    const job = await env.queue.getJob(agentJobId(options.runId, taskId, 1));
    if (job?.processedOn && job.finishedOn) jobMs.push(job.finishedOn - job.processedOn);
  }
  return { results, wallMs, jobMs };
}

/** `git daemon` on loopback serving `base`, fetch and push; its URL once it answers. */
async function startGitDaemon(base: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const port = await getPort({ host: '127.0.0.1' });
  const child: ChildProcess = spawn(
    'git',
    ['daemon', '--reuseaddr', '--export-all', '--enable=receive-pack', `--base-path=${base}`, '--listen=127.0.0.1', `--port=${port}`, base],
    { stdio: 'ignore' },
  );
  const url = `git://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`git daemon exited (${child.exitCode})`);
    try {
      execFileSync('git', ['ls-remote', `${url}/bench.git`], { stdio: 'pipe', timeout: 2_000 });
      break;
    } catch {
      await sleep(50);
    }
  }
  return {
    url,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}
