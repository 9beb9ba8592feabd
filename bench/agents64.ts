import { agentJobId } from '../shared/infra/queue/agentQueue.js';
import { BenchEnv } from './benchEnv.js';
import { makeRunRepo, reportTurn, scriptedAgentJob } from './runScript.js';

/**
 * 64 agents in flight at once on this machine: 4 worker processes × 16 agents, each agent a
 * worker job in a worktree of its own that reads, writes, runs a shell command and reports, its
 * model calls slow enough (2 s each) that all 64 are running together. Counted: jobs BullMQ found
 * stalled (a lock not renewed in time: a worker too busy to keep up), jobs started more than once,
 * jobs that did not complete, and the most agents seen running at once (from the run's events).
 */
export interface Agents64Result {
  agents_64_stalled: number;
  restarted: number;
  not_completed: number;
  peak_in_flight: number;
  agents: number;
}

export async function agents64Benchmark(options: { agents?: number; workers?: number; latencyMs?: number } = {}): Promise<Agents64Result> {
  const agents = options.agents ?? 64;
  const workers = options.workers ?? 4;
  const latencyMs = options.latencyMs ?? 2_000;
  return BenchEnv.with(async (env) => {
    const repo = env.dir('repo');
    const base = makeRunRepo(repo, { 'README.md': '# sixty-four\n', 'src/shared.txt': 'shared\n' });
    await Promise.all(Array.from({ length: workers }, () => env.startWorker({ concurrency: Math.ceil(agents / workers) })));
    const stalled = new Set<string>();
    const events = env.queue.events(env.redis.duplicate());
    events.on('stalled', ({ jobId }) => stalled.add(jobId));
    await events.waitUntilReady();
    const runId = `agents64-${env.prefix.slice(-8)}`;
    const ids = Array.from({ length: agents }, (_, i) => `a${String(i).padStart(2, '0')}`);
    try {
      await Promise.all(
        ids.map((taskId) =>
          env.queue.add(
            scriptedAgentJob({
              runId,
              taskId,
              repo,
              base,
              role: { sandbox: false },
              turns: [
                { latency_ms: latencyMs, tools: [{ name: 'Read', input: { file_path: 'src/shared.txt' } }] },
                { latency_ms: latencyMs, tools: [{ name: 'Write', input: { file_path: `out/${taskId}.txt`, content: `${taskId}\n` } }] },
                { latency_ms: latencyMs, tools: [{ name: 'Bash', input: { command: `wc -c out/${taskId}.txt` } }] },
                reportTurn(`agent ${taskId}`, latencyMs),
              ],
            }),
          ),
        ),
      );
      const results = await Promise.all(ids.map((taskId) => env.result(agentJobId(runId, taskId, 1), 900_000)));
      let restarted = 0;
      for (const taskId of ids) {
        const job = await env.queue.getJob(agentJobId(runId, taskId, 1));
        if ((job?.attemptsStarted ?? 1) > 1 || (job?.stalledCounter ?? 0) > 0) restarted += 1;
        if ((job?.stalledCounter ?? 0) > 0) stalled.add(String(job!.id));
      }
      // Agents running at once: +1 at each session start, -1 at each end, in time order.
      const steps = (await env.events(runId))
        .filter((entry) => entry.source === 'agent' && (entry.event.type === 'session_start' || entry.event.type === 'end'))
        .map((entry) => ({ at: entry.event.at, delta: entry.event.type === 'session_start' ? 1 : -1 }))
        .sort((a, b) => a.at - b.at || a.delta - b.delta);
      let running = 0;
      let peak = 0;
      for (const step of steps) peak = Math.max(peak, (running += step.delta));
      return {
        agents_64_stalled: stalled.size,
        restarted,
        not_completed: results.filter((result) => result.status !== 'completed').length,
        peak_in_flight: peak,
        agents,
      };
    } finally {
      await events.close();
    }
  });
}
