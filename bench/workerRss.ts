import { setTimeout as sleep } from 'node:timers/promises';
import { agentJobId } from '../shared/infra/queue/agentQueue.js';
import { BenchEnv } from './benchEnv.js';
import { cpuMsOf, memoryOf } from './processScan.js';
import { reportTurn, scriptedAgentJob } from './runScript.js';
import { round } from './stats.js';

/**
 * Peak RSS of one worker process running 4 agents at once on the large repository, each doing
 * what costs a worker memory: a Glob over all 20,000 files, a content Grep, a Read, an Edit, a
 * shell command, over about ten turns. The peak is the kernel's high-water mark for the process
 * (VmHWM: its own threads, the grep pool's included; its git and shell children are processes of
 * their own and not counted). Beside it: the same worker's RSS when idle and ready. The target is
 * issue 35's (110 MB before it).
 */
export const WORKER_RSS_TARGET_MB = 100;

export interface WorkerRssResult {
  worker_rss_mb: number;
  idle_rss_mb: number;
  /** The worker process's own CPU (user + system, not its git and shell children) to start, then for the 4 agents. */
  start_cpu_ms: number;
  agents_cpu_ms: number;
  agents: number;
}

export async function workerRssBenchmark(
  repo: { dir: string; base: string },
  options: { agents?: number; without?: readonly string[] } = {},
): Promise<WorkerRssResult> {
  const agents = options.agents ?? 4;
  return BenchEnv.with(async (env) => {
    const worker = await env.startWorker({ concurrency: agents });
    await sleep(1_000);
    const idle = memoryOf(worker.pid).rssMb;
    const startCpu = cpuMsOf(worker.pid);
    const runId = `rss-${env.prefix.slice(-8)}`;
    const file = 'packages/pkg00/src/mod0/file00001.ts';
    for (let i = 0; i < agents; i += 1) {
      await env.queue.add(
        scriptedAgentJob({
          runId,
          taskId: `r${i}`,
          repo: repo.dir,
          base: repo.base,
          role: { sandbox: false },
          // `without` leaves tools out, to see what each costs (profiling; the figure uses them all).
          turns: [
            { latency_ms: 200, tools: [{ name: 'Glob', input: { pattern: '**/*.ts' } }] },
            { latency_ms: 200, tools: [{ name: 'Grep', input: { pattern: 'legacyTotal\\(', output_mode: 'content', '-n': true } }] },
            { latency_ms: 200, tools: [{ name: 'Grep', input: { pattern: 'export function total1', output_mode: 'files_with_matches' } }] },
            { latency_ms: 200, tools: [{ name: 'Read', input: { file_path: file } }] },
            {
              latency_ms: 200,
              tools: [
                {
                  name: 'Edit',
                  input: { file_path: file, old_string: '// Generated module 1.', new_string: `// Generated module 1, edited by r${i}.` },
                },
              ],
            },
            { latency_ms: 200, tools: [{ name: 'Bash', input: { command: 'git status --short | head -5' } }] },
            { latency_ms: 200, tools: [{ name: 'Glob', input: { pattern: 'packages/*/src/mod1/*.ts' } }] },
            { latency_ms: 200, tools: [{ name: 'Read', input: { file_path: 'README.md' } }] },
            reportTurn(`rss agent ${i}`, 200),
          ].filter((turn) => !(turn.tools ?? []).some((tool) => options.without?.includes(tool.name))),
        }),
      );
    }
    let peak = 0;
    const sampling = (async () => {
      for (;;) {
        const done = await Promise.all(
          Array.from({ length: agents }, (_, i) => env.queue.queue.getJobState(agentJobId(runId, `r${i}`, 1))),
        );
        peak = Math.max(peak, memoryOf(worker.pid).peakMb);
        if (done.every((state) => state === 'completed' || state === 'failed')) return;
        await sleep(200);
      }
    })();
    const results = await Promise.all(Array.from({ length: agents }, (_, i) => env.result(agentJobId(runId, `r${i}`, 1))));
    await sampling;
    const failed = results.filter((result) => result.status !== 'completed');
    if (failed.length > 0)
      throw new Error(`${failed.length} RSS agent(s) did not complete: ${failed.map((r) => `${r.end_reason}: ${r.detail}`).join('; ')}`);
    peak = Math.max(peak, memoryOf(worker.pid).peakMb);
    const agentsCpu = cpuMsOf(worker.pid) - startCpu;
    return { worker_rss_mb: round(peak, 1), idle_rss_mb: round(idle, 1), start_cpu_ms: startCpu, agents_cpu_ms: agentsCpu, agents };
  });
}
