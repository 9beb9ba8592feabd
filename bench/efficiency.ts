import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BenchEnv } from './benchEnv.js';
import { type JobEndPhases, jobEndPhases, medianEndPhases } from './jobEndPhases.js';
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
/** What orca may add to a job before its first call, and after its last, each (p50). */
export const JOB_COST_TARGET_MS = 150;

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
  /**
   * Per worker job, p50: from when it could start (queued, and its worker slot free: the previous
   * job of that slot had its result) to its first model call; and from its last call's answer to
   * its result recorded. What orca adds to a job whatever the model does.
   */
  startCostMs: number;
  endCostMs: number;
  /** Where endCostMs goes, each step's p50 (jobEndPhases.ts). */
  endPhases: JobEndPhases;
  /** Per worker job, p50: its first model call made → its last answered (the model's share of the job). */
  modelMs: number;
  /** CPU time (user + system) of the whole run, every orca process in it (CLI, coordinator, workers, git, bwrap, checks), per worker job. */
  cpuMsPerJob: number;
}

export interface EfficiencyResult {
  efficiency: number;
  efficiency_with_merges: number;
  ideal_ms: number;
  dispatch_ms: number;
  start_overhead_ms: number;
  end_overhead_ms: number;
  /** p50 over the runs of each run's p50 (EfficiencyRun.startCostMs, endCostMs). */
  start_cost_p50_ms: number;
  end_cost_p50_ms: number;
  /** Each step of end_cost_p50_ms, the p50 over the runs of each run's p50 (they need not add up to it). */
  end_phases_p50: JobEndPhases;
  cpu_ms_per_job: number;
  model_p50_ms: number;
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
    start_cost_p50_ms: round(median(runs.map((r) => r.startCostMs))),
    end_cost_p50_ms: round(median(runs.map((r) => r.endCostMs))),
    end_phases_p50: medianEndPhases(runs.map((r) => r.endPhases)),
    cpu_ms_per_job: round(median(runs.map((r) => r.cpuMsPerJob))),
    model_p50_ms: round(median(runs.map((r) => r.modelMs))),
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
  const cpuBefore = childrenCpuMs();
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
  const cpuMs = childrenCpuMs() - cpuBefore;
  const events = await env.events(json.run_id);
  const worker = new Set(ids);
  const queued = new Map<string, number>();
  const firstUsage = new Map<string, number>();
  const lastUsage = new Map<string, number>();
  const results = new Map<string, number>();
  const lanes = new Map<string, string>();
  let lastMerge = 0;
  for (const { task_id: agentTask, source, event } of events) {
    const task = agentTask ?? (typeof event.task_id === 'string' ? event.task_id : undefined);
    if (!task || !worker.has(task)) continue;
    if (source === 'run' && event.type === 'task_state' && event.status === 'queued' && !queued.has(task)) queued.set(task, event.at);
    if (source === 'run' && event.type === 'task_result') results.set(task, event.at);
    if (source === 'run' && event.type === 'merge') lastMerge = Math.max(lastMerge, event.at);
    if (source === 'agent' && event.type === 'workspace') lanes.set(task, `${event.host}:${event.pid}:${event.slot}`);
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
    startCostMs: median(startCosts(ids, { queued, firstUsage, results, lanes }, setup.latencyMs)),
    endCostMs: median(endOverheads),
    endPhases: await jobEndPhases(env.queue, events, worker),
    cpuMsPerJob: cpuMs / ids.length,
    modelMs: median(ids.map((id) => lastUsage.get(id)! - (firstUsage.get(id)! - setup.latencyMs))),
  };
}

/**
 * Each job's time from when it could start to its first model call: the later of its queueing
 * and its slot coming free (the result of the job before it in the same worker slot).
 */
function startCosts(
  ids: string[],
  seen: { queued: Map<string, number>; firstUsage: Map<string, number>; results: Map<string, number>; lanes: Map<string, string> },
  latencyMs: number,
): number[] {
  const firstCall = (id: string) => seen.firstUsage.get(id)! - latencyMs;
  const byLane = new Map<string, string[]>();
  for (const id of ids) {
    const lane = seen.lanes.get(id) ?? `unknown:${id}`;
    byLane.set(lane, [...(byLane.get(lane) ?? []), id]);
  }
  return [...byLane.values()].flatMap((jobs) => {
    const ordered = jobs.sort((a, b) => firstCall(a) - firstCall(b));
    return ordered.map((id, i) => {
      const slotFree = i === 0 ? 0 : seen.results.get(ordered[i - 1]!)!;
      return firstCall(id) - Math.max(seen.queued.get(id)!, slotFree);
    });
  });
}

/** CPU time of this process's children that have ended and were waited for (and theirs, recursively), in ms. */
function childrenCpuMs(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  // After "pid (comm) ": field 3 is the state; cutime and cstime are fields 16 and 17.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[13]) + Number(fields[14]);
  return (ticks * 1_000) / CLOCK_TICKS_PER_S;
}

/** USER_HZ: 100 on Linux for every architecture orca runs on. */
const CLOCK_TICKS_PER_S = 100;
