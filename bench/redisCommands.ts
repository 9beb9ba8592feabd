import { execFile } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { JobWaiter } from '../coordinator/jobWaiter.js';
import type { ScriptTurn } from '../shared/core/model/scriptFile.js';
import { agentJobId } from '../shared/infra/queue/agentQueue.js';
import { BenchEnv } from './benchEnv.js';
import { PrivateRedis } from './privateRedis.js';
import { makeRunRepo, reportTurn, scriptedAgentJob } from './runScript.js';
import { round } from './stats.js';

const exec = promisify(execFile);
const HELD_CALL_MS = 3_000;

/**
 * What one agent job costs Redis, on a redis-server of the benchmark's own: `INFO commandstats`
 * (calls per command) and the server's CPU time, around a batch of scripted worker jobs, minus
 * what the same server and workers cost idle over the same time (commands and CPU). Two batches, with 2 and 6 model turns a
 * job, split the cost into a fixed part per job and a part per turn; a third, with the 2-turn
 * jobs' model calls held 3 s each, gives what an agent costs per second while its model thinks
 * (lock renewal, the coordinator's safety poll of the job). The coordinator's side is
 * in it: the jobs are added and waited for as `orca run` does (JobWaiter: the queue's events, a
 * 30 s safety poll). MONITOR,
 * during a third batch, counts the commands clients sent ( commandstats also counts
 * the commands BullMQ's Lua scripts run inside Redis). Beside it, the reference: `redis-benchmark`
 * on the same server (50 clients, no pipelining), the ops/s one Redis gives on this machine.
 */
export interface RedisCommandsResult {
  jobs: number;
  /** All commands Redis executed (scripts' inner commands included), per job of `turns_high` turns. */
  commands_per_job: number;
  /** Fixed part per job (turns excluded) and the part each model turn adds. */
  commands_fixed_per_job: number;
  commands_per_turn: number;
  /** Commands clients sent (a script counted once, each command of a MULTI counted), per job of `turns_high` turns. */
  client_commands_per_job: number;
  /** The server's CPU time per job (user + system, from /proc), ms. */
  redis_cpu_ms_per_job: number;
  redis_cpu_ms_per_turn: number;
  /**
   * What a job costs per second of the run while it is waited for, beyond its turns (the
   * coordinator's safety poll of its state, its lock's renewal while it runs): from a batch whose
   * model calls are held, over the seconds it took longer than the same batch unheld.
   */
  commands_per_agent_second: number;
  redis_cpu_ms_per_agent_second: number;
  turns_low: number;
  turns_high: number;
  by_command: Record<string, number>;
  idle_commands_per_s: number;
  /** The server's CPU time per second with the workers idle (subtracted from the CPU figures), ms. */
  idle_redis_cpu_ms_per_s: number;
  reference: { set_ops_per_s: number; get_ops_per_s: number; clients: number };
}

type Stats = Map<string, number>;

export async function redisCommandsBenchmark(
  options: { jobs?: number; workers?: number; concurrency?: number } = {},
): Promise<RedisCommandsResult> {
  const jobs = options.jobs ?? 32;
  const workers = options.workers ?? 2;
  const concurrency = options.concurrency ?? 4;
  const turnsLow = 2;
  const turnsHigh = 6;
  const server = await PrivateRedis.start();
  try {
    const measured = await server.withRedisUrl(() =>
      BenchEnv.with(async (env) => {
        const repo = env.dir('repo');
        const base = makeRunRepo(repo, { 'README.md': '# redis\n', 'src/a.txt': 'a\n' });
        for (let i = 0; i < workers; i += 1) await env.startWorker({ concurrency });
        const admin = new Redis(server.url);
        const eventsConnection = env.redis.duplicate();
        const events = env.queue.events(eventsConnection, await env.queue.lastEventId());
        await events.waitUntilReady();
        const waiter = new JobWaiter(env.queue, events);
        try {
          // Idle: the workers, the queue's events and nothing queued, for a few seconds.
          await admin.config('RESETSTAT');
          const idleStart = performance.now();
          const idleCpuStart = server.cpuMs();
          await sleep(5_000);
          const idle = commandTotal(await commandStats(admin));
          const idleSeconds = (performance.now() - idleStart) / 1000;
          const idlePerS = idle / idleSeconds;
          // The server's own housekeeping (its cron, the idle workers' blocking reads) is not the jobs' CPU either.
          const idleCpuPerS = (server.cpuMs() - idleCpuStart) / idleSeconds;
          const batch = async (label: string, turns: number, latencyMs = 20) => {
            const runId = `redis-${label}-${env.prefix.slice(-8)}`;
            const cpuBefore = server.cpuMs();
            await admin.config('RESETSTAT');
            const start = performance.now();
            const ids = Array.from({ length: jobs }, (_, i) => `t${String(i).padStart(2, '0')}`);
            await Promise.all(
              ids.map((taskId) =>
                env.queue.add(
                  scriptedAgentJob({ runId, taskId, repo, base, role: { sandbox: false }, turns: scriptedTurns(taskId, turns, latencyMs) }),
                ),
              ),
            );
            const results = await Promise.all(ids.map((taskId) => waiter.wait(agentJobId(runId, taskId, 1), AbortSignal.timeout(600_000))));
            const seconds = (performance.now() - start) / 1000;
            const stats = await commandStats(admin);
            const cpu = server.cpuMs() - cpuBefore - idleCpuPerS * seconds;
            const failed = results.filter((result) => result.status !== 'completed');
            if (failed.length > 0) throw new Error(`${failed.length} job(s) of the Redis benchmark did not complete: ${failed[0]!.detail}`);
            // What the idle workers would have sent over the same time is not the jobs' cost.
            const idleShare = (idlePerS * seconds) / Math.max(1, commandTotal(stats));
            return { stats, seconds, cpu, idleShare };
          };
          const low = await batch('low', turnsLow);
          const high = await batch('high', turnsHigh);
          // The same jobs as `low` with each model call held 3 s: what an agent costs while its model thinks.
          const held = await batch('held', turnsLow, HELD_CALL_MS);
          const trips = await clientCommands(server.url, () => batch('trips', turnsHigh));
          const clientPerJob = (trips.count - idlePerS * trips.value.seconds) / jobs;
          const perJob = (b: { stats: Stats; idleShare: number }) => (commandTotal(b.stats) * (1 - b.idleShare)) / jobs;
          const lowPerJob = perJob(low);
          const highPerJob = perJob(high);
          const perTurn = (highPerJob - lowPerJob) / (turnsHigh - turnsLow);
          // Every job of the batch is waited for the whole batch long, queued or running.
          const heldSeconds = held.seconds - low.seconds;
          const heldPerJobSecond = (perJob(held) - lowPerJob) / heldSeconds;
          const cpuLow = low.cpu / jobs;
          const cpuHigh = high.cpu / jobs;
          const byCommand = Object.fromEntries(
            [...high.stats.entries()]
              .filter(([name]) => name !== 'info' && name !== 'config|resetstat')
              .map(([name, calls]) => [name, round(calls / jobs, 1)] as const)
              .sort((a, b) => b[1] - a[1]),
          );
          return {
            commands_per_job: round(highPerJob, 1),
            commands_fixed_per_job: round(lowPerJob - perTurn * turnsLow, 1),
            commands_per_turn: round(perTurn, 1),
            client_commands_per_job: round(clientPerJob, 1),
            redis_cpu_ms_per_job: round(cpuHigh, 2),
            redis_cpu_ms_per_turn: round((cpuHigh - cpuLow) / (turnsHigh - turnsLow), 2),
            commands_per_agent_second: round(heldPerJobSecond, 2),
            redis_cpu_ms_per_agent_second: round((held.cpu - low.cpu) / jobs / heldSeconds, 3),
            by_command: byCommand,
            idle_commands_per_s: round(idlePerS, 1),
            idle_redis_cpu_ms_per_s: round(idleCpuPerS, 2),
          };
        } finally {
          await events.close();
          eventsConnection.disconnect();
          admin.disconnect();
        }
      }),
    );
    const reference = await redisBenchmark(server.port);
    return { jobs, turns_low: turnsLow, turns_high: turnsHigh, ...measured, reference };
  } finally {
    await server.stop();
  }
}

/** A job's turns: `turns - 1` of one tool each (Read, Write, Bash in turn), then the Report. */
function scriptedTurns(taskId: string, turns: number, latencyMs: number): ScriptTurn[] {
  const tools = [
    { name: 'Read', input: { file_path: 'src/a.txt' } },
    { name: 'Write', input: { file_path: `out/${taskId}.txt`, content: `${taskId}\n` } },
    { name: 'Bash', input: { command: `wc -c out/${taskId}.txt` } },
  ];
  return [
    ...Array.from({ length: turns - 1 }, (_, i) => ({ latency_ms: latencyMs, tools: [tools[i % tools.length]!] })),
    reportTurn(`job ${taskId}`, latencyMs),
  ];
}

async function commandStats(redis: Redis): Promise<Stats> {
  const text = (await redis.info('commandstats')) as string;
  const stats: Stats = new Map();
  for (const match of text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) stats.set(match[1]!, Number(match[2]));
  return stats;
}

function commandTotal(stats: Stats): number {
  let total = 0;
  for (const [name, calls] of stats) if (name !== 'info' && name !== 'config|resetstat') total += calls;
  return total;
}

/** Commands sent by clients while `fn` runs, from MONITOR (which shows scripts' inner commands as from "lua"). */
async function clientCommands<T>(url: string, fn: () => Promise<T>): Promise<{ count: number; value: T }> {
  const monitorClient = new Redis(url);
  const monitor = await monitorClient.monitor();
  let count = 0;
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    if (source !== 'lua' && !source.includes('lua') && args[0]?.toLowerCase() !== 'monitor') count += 1;
  });
  try {
    const value = await fn();
    // The batch's INFO and CONFIG RESETSTAT are the benchmark's, not the jobs'.
    return { count: count - 2, value };
  } finally {
    monitor.disconnect();
    monitorClient.disconnect();
  }
}

/** `redis-benchmark` on the benchmark's server: the ops/s one Redis gives on this machine, no pipelining. */
async function redisBenchmark(port: number): Promise<RedisCommandsResult['reference']> {
  const clients = 50;
  const run = async (args: string[]) =>
    (await exec('redis-benchmark', ['-p', String(port), '-c', String(clients), '-n', '100000', '--csv', ...args])).stdout;
  const ops = (csv: string, name: string) => {
    const line = csv.split('\n').find((row) => row.startsWith(`"${name}`));
    return line ? round(Number(line.split(',')[1]!.replaceAll('"', ''))) : Number.NaN;
  };
  const simple = await run(['-t', 'set,get']);
  return { set_ops_per_s: ops(simple, 'SET'), get_ops_per_s: ops(simple, 'GET'), clients };
}
