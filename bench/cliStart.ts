import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { BenchEnv } from './benchEnv.js';
import { makeRunRepo } from './runScript.js';
import { percentile, round } from './stats.js';

/**
 * The CLI's time to its run id: from `orca run TASK --no-local-workers` started to its
 * `orca: run <id>` line on stderr (the options checked, the repository inspected, Redis answered),
 * beside a bare `node` that writes one line to stderr, started the same way, as the reference: what
 * any Node CLI pays before its first line on this machine. Both alternate, so a slow spell of the
 * machine falls on both. Once the id is said the run is interrupted (SIGINT) and waited for; no
 * worker takes its jobs, and the env's keys go with it.
 */
export const CLI_TO_RUN_ID_TARGET_MS = 300;

export interface CliStartResult {
  cli_to_run_id_ms: number;
  cli_to_run_id_p90_ms: number;
  /** `node -e` writing one line to stderr, same spawn, same run: the floor. */
  node_line_ms: number;
  runs: number;
}

export async function cliStartBenchmark(options: { runs?: number; warmup?: number } = {}): Promise<CliStartResult> {
  const runs = options.runs ?? 20;
  const warmup = options.warmup ?? 2;
  return BenchEnv.with(async (env) => {
    const repo = env.dir('repo');
    makeRunRepo(repo);
    const script = path.join(env.dir('script'), 'script.json');
    // The run never reaches an agent: the coordinator's first turn, which no worker plays, is enough of a script.
    writeFileSync(script, JSON.stringify({ latency_ms: 0, agents: [{ when: { role: 'coordinator' }, turns: [] }] }));
    const toRunId: number[] = [];
    const nodeLine: number[] = [];
    for (let i = 0; i < warmup + runs; i += 1) {
      const cli = await timedRunId(env, i < warmup, [
        'run',
        'say hello',
        '--repo',
        repo,
        '--no-local-workers',
        '--check',
        'sh check.sh',
        '--script',
        script,
      ]);
      const bare = await timedNodeLine(env);
      if (i < warmup) continue;
      toRunId.push(cli);
      nodeLine.push(bare);
    }
    return {
      cli_to_run_id_ms: round(percentile(toRunId, 50)),
      cli_to_run_id_p90_ms: round(percentile(toRunId, 90)),
      node_line_ms: round(percentile(nodeLine, 50)),
      runs,
    };
  });
}

/**
 * `orca ARGS` from its start to its run id line; then interrupted (Ctrl-C), and waited for. A
 * warm-up run lives on past the making of its command's code cache
 * (shared/core/runtime/cachedBundle.ts), as a user's first run does.
 */
async function timedRunId(env: BenchEnv, warmup: boolean, args: string[]): Promise<number> {
  const start = performance.now();
  const cli = env.cli(args, { deadlineMs: 60_000 });
  await cli.runId;
  const elapsed = performance.now() - start;
  if (warmup) await delay(1_500);
  cli.child.kill('SIGINT');
  await cli.done;
  return elapsed;
}

/** A bare `node` process from its start to its first stderr line: the reference. */
async function timedNodeLine(env: BenchEnv): Promise<number> {
  const start = performance.now();
  const child = spawn(process.execPath, ['-e', 'process.stderr.write("line\\n")'], {
    env: env.processEnv(),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const [chunk] = (await once(child.stderr!, 'data')) as [Buffer];
  const elapsed = performance.now() - start;
  await once(child, 'close');
  if (!chunk.toString().startsWith('line')) throw new Error(`node -e wrote ${chunk.toString()} instead of its line`);
  return elapsed;
}
