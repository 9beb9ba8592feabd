import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { BenchEnv } from './benchEnv.js';
import { CHECK_COMMAND, makeRunRepo, runScript, writerTurns } from './runScript.js';
import { median, round } from './stats.js';

/**
 * Scheduling efficiency of a whole `orca run`: a flat DAG of 32 independent subtasks, each a
 * worker making 4 model calls of a fixed latency, on 8 worker slots (4 local worker processes × 2).
 * The ideal makespan of the dispatch phase is ceil(32 / 8) waves × 4 calls × latency; the measured
 * one runs from the first worker job queued to the last worker result, both read from the run's
 * event stream. Merges run alongside (each branch is merged as it comes back) and are reported
 * separately, as the time from the first job queued to the last merge.
 */
export const EFFICIENCY_TARGET = 0.97;

export interface EfficiencyOptions {
  subtasks?: number;
  callsPerTask?: number;
  slots?: { workers: number; concurrency: number };
  latencyMs?: number;
  repetitions?: number;
}

export interface EfficiencyRun {
  dispatchMs: number;
  throughMergesMs: number;
  efficiency: number;
  efficiencyWithMerges: number;
  /** Per worker job: queued → its first model call returned, and its last call → result recorded. */
  startOverheadMs: number;
  endOverheadMs: number;
}

export interface EfficiencyResult {
  efficiency: number;
  efficiency_with_merges: number;
  ideal_ms: number;
  dispatch_ms: number;
  start_overhead_ms: number;
  end_overhead_ms: number;
  runs: EfficiencyRun[];
  setup: Required<Omit<EfficiencyOptions, 'repetitions'>> & { repetitions: number };
}

export async function efficiencyBenchmark(options: EfficiencyOptions = {}): Promise<EfficiencyResult> {
  const subtasks = options.subtasks ?? 32;
  const calls = options.callsPerTask ?? 4;
  const slots = options.slots ?? { workers: 4, concurrency: 2 };
  const latencyMs = options.latencyMs ?? 500;
  const repetitions = options.repetitions ?? 3;
  const slotCount = slots.workers * slots.concurrency;
  const ideal = Math.ceil(subtasks / slotCount) * calls * latencyMs;
  const runs: EfficiencyRun[] = [];
  for (let rep = 0; rep < repetitions; rep += 1) {
    runs.push(await BenchEnv.with((env) => oneRun(env, { subtasks, calls, slots, latencyMs, ideal })));
  }
  return {
    efficiency: round(median(runs.map((r) => r.efficiency)), 3),
    efficiency_with_merges: round(median(runs.map((r) => r.efficiencyWithMerges)), 3),
    ideal_ms: ideal,
    dispatch_ms: round(median(runs.map((r) => r.dispatchMs))),
    start_overhead_ms: round(median(runs.map((r) => r.startOverheadMs))),
    end_overhead_ms: round(median(runs.map((r) => r.endOverheadMs))),
    runs,
    setup: { subtasks, callsPerTask: calls, slots, latencyMs, repetitions },
  };
}

async function oneRun(
  env: BenchEnv,
  setup: { subtasks: number; calls: number; slots: { workers: number; concurrency: number }; latencyMs: number; ideal: number },
): Promise<EfficiencyRun> {
  const ids = Array.from({ length: setup.subtasks }, (_, i) => `t${String(i + 1).padStart(2, '0')}`);
  const repo = path.join(env.dir('repo'), 'flat');
  makeRunRepo(repo);
  const script = path.join(env.dir('script'), 'flat.json');
  writeFileSync(
    script,
    JSON.stringify(
      runScript(ids.map((id) => ({ id, paths: [`src/${id}.txt`], turns: writerTurns(`src/${id}.txt`, setup.calls, setup.latencyMs) }))),
    ),
  );
  const cli = env.cli([
    'run',
    'write one file per subtask',
    '--repo',
    repo,
    '--script',
    script,
    '--json',
    '--workers',
    String(setup.slots.workers),
    '--concurrency',
    String(setup.slots.concurrency),
    '--check',
    CHECK_COMMAND,
  ]);
  const json = await cli.json<{ run_id: string; status: string; tasks: Array<{ status: string }> }>();
  if (json.status !== 'PASS') throw new Error(`the efficiency run ended ${json.status}:\n${cli.stderr}`);
  const events = await env.events(json.run_id);
  const worker = new Set(ids);
  const queued = new Map<string, number>();
  const firstUsage = new Map<string, number>();
  const lastUsage = new Map<string, number>();
  const results = new Map<string, number>();
  let lastMerge = 0;
  for (const { task_id: agentTask, source, event } of events) {
    const task = agentTask ?? (typeof event.task_id === 'string' ? event.task_id : undefined);
    if (!task || !worker.has(task)) continue;
    if (source === 'run' && event.type === 'task_state' && event.status === 'queued' && !queued.has(task)) queued.set(task, event.at);
    if (source === 'run' && event.type === 'task_result') results.set(task, event.at);
    if (source === 'run' && event.type === 'merge') lastMerge = Math.max(lastMerge, event.at);
    if (source === 'agent' && event.type === 'usage') {
      if (!firstUsage.has(task)) firstUsage.set(task, event.at);
      lastUsage.set(task, event.at);
    }
  }
  if (results.size !== ids.length) throw new Error(`only ${results.size} of ${ids.length} worker results were recorded`);
  const start = Math.min(...queued.values());
  const end = Math.max(...results.values());
  // A job's first usage event comes one latency after its first model call.
  const startOverheads = ids.map((id) => firstUsage.get(id)! - setup.latencyMs - queued.get(id)!);
  const endOverheads = ids.map((id) => results.get(id)! - lastUsage.get(id)!);
  return {
    dispatchMs: end - start,
    throughMergesMs: lastMerge - start,
    efficiency: setup.ideal / (end - start),
    efficiencyWithMerges: setup.ideal / (lastMerge - start),
    startOverheadMs: median(startOverheads.filter((ms) => ms >= 0)),
    endOverheadMs: median(endOverheads),
  };
}
