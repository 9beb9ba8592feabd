import { agentJobId } from '../shared/infra/queue/agentQueue.js';
import { BenchEnv } from './benchEnv.js';
import { makeRunRepo, reportTurn, scriptedAgentJob } from './runScript.js';
import { percentile, round } from './stats.js';

/**
 * Many agents on this machine at once (256 by default): 4 worker processes × 64 agent slots,
 * each agent a worker job in a worktree of its own that reads, writes, runs a shell command and
 * reports, its model calls slow (5 s each) so that as many as the machine can start are running
 * together. Counted: jobs BullMQ found stalled (a lock not renewed in time: a worker too busy to
 * keep up), jobs started more than once, jobs that did not complete, the most agents seen
 * running at once (from the run's events), and how fast the workers started them (queued →
 * session start): on 2 cores the starts, not the slots, bound how many run together.
 */
export interface AgentsResult {
  stalled: number;
  restarted: number;
  not_completed: number;
  peak_in_flight: number;
  agents: number;
  workers: number;
  latency_ms: number;
  /** Queued → the agent's session start, ms. */
  start_p50_ms: number;
  start_p99_ms: number;
  /** Agents started per second, from the first start to the last. */
  starts_per_s: number;
  duration_s: number;
}

export async function agentsBenchmark(options: { agents?: number; workers?: number; latencyMs?: number } = {}): Promise<AgentsResult> {
  const agents = options.agents ?? 256;
  const workers = options.workers ?? 4;
  const latencyMs = options.latencyMs ?? 5_000;
  return BenchEnv.with(async (env) => {
    const repo = env.dir('repo');
    const base = makeRunRepo(repo, { 'README.md': '# many agents\n', 'src/shared.txt': 'shared\n' });
    await Promise.all(Array.from({ length: workers }, () => env.startWorker({ concurrency: Math.ceil(agents / workers) })));
    const stalled = new Set<string>();
    const events = env.queue.events(env.redis.duplicate());
    events.on('stalled', ({ jobId }) => stalled.add(jobId));
    await events.waitUntilReady();
    const runId = `agents-${env.prefix.slice(-8)}`;
    const ids = Array.from({ length: agents }, (_, i) => `a${String(i).padStart(3, '0')}`);
    const started = Date.now();
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
      const results = await Promise.all(ids.map((taskId) => env.result(agentJobId(runId, taskId, 1), 1_800_000)));
      const duration = (Date.now() - started) / 1000;
      let restarted = 0;
      for (const taskId of ids) {
        const job = await env.queue.getJob(agentJobId(runId, taskId, 1));
        if ((job?.attemptsStarted ?? 1) > 1 || (job?.stalledCounter ?? 0) > 0) restarted += 1;
        if ((job?.stalledCounter ?? 0) > 0) stalled.add(String(job!.id));
      }
      const agentEvents = (await env.events(runId)).filter((entry) => entry.source === 'agent');
      // Agents running at once: +1 at each session start, -1 at each end, in time order.
      const steps = agentEvents
        .filter((entry) => entry.event.type === 'session_start' || entry.event.type === 'end')
        .map((entry) => ({ at: entry.event.at, delta: entry.event.type === 'session_start' ? 1 : -1 }))
        .sort((a, b) => a.at - b.at || a.delta - b.delta);
      let running = 0;
      let peak = 0;
      for (const step of steps) peak = Math.max(peak, (running += step.delta));
      const starts = agentEvents
        .filter((entry) => entry.event.type === 'session_start')
        .map((entry) => entry.event.at)
        .sort((a, b) => a - b);
      const waits = starts.map((at) => at - started);
      const span = (starts.at(-1)! - starts[0]!) / 1000;
      return {
        stalled: stalled.size,
        restarted,
        not_completed: results.filter((result) => result.status !== 'completed').length,
        peak_in_flight: peak,
        agents,
        workers,
        latency_ms: latencyMs,
        start_p50_ms: round(percentile(waits, 50)),
        start_p99_ms: round(percentile(waits, 99)),
        starts_per_s: round(span > 0 ? (starts.length - 1) / span : starts.length, 1),
        duration_s: round(duration, 1),
      };
    } finally {
      await events.close();
    }
  });
}
