import { randomInt } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { agentJobId } from '../shared/infra/queue/agentQueue.js';
import { BenchEnv } from './benchEnv.js';
import { pidsWithMarker } from './processScan.js';
import { makeRunRepo, reportTurn, scriptedAgentJob } from './runScript.js';
import { percentile, round } from './stats.js';

/**
 * Abort latency: `orca abort RUN` typed while the run's agents are each inside a shell whose child
 * runs a grandchild (`bash -c "sleep …"`), half of them in the bwrap sandbox, until no process of
 * the run is left, polled in /proc every 5 ms. Measured from the moment the command is started,
 * so the CLI's own start is in it; the part after the abort was published (when the command says
 * so) is reported beside it. Each run has 4 agents on 2 worker processes (2 agents each).
 */
export const ABORT_TARGET_MS = 1_000;

export interface AbortResult {
  abort_p95_ms: number;
  abort_p50_ms: number;
  after_publish_p95_ms: number;
  cli_start_p50_ms: number;
  runs: number;
}

export async function abortBenchmark(options: { runs?: number } = {}): Promise<AbortResult> {
  const runs = options.runs ?? 20;
  return BenchEnv.with(async (env) => {
    const repo = env.dir('repo');
    const base = makeRunRepo(repo);
    await Promise.all([env.startWorker({ concurrency: 2 }), env.startWorker({ concurrency: 2 })]);
    const total: number[] = [];
    const afterPublish: number[] = [];
    const cliStart: number[] = [];
    for (let run = 0; run < runs; run += 1) {
      const runId = `abort-${run}-${randomInt(100_000, 999_999)}`;
      const markers = [0, 1, 2, 3].map((i) => `600.4245${randomInt(100_000, 999_999)}${run}${i}`);
      for (const [i, marker] of markers.entries()) {
        await env.queue.add(
          scriptedAgentJob({
            runId,
            taskId: `t${i}`,
            repo,
            base,
            role: { sandbox: i % 2 === 0 },
            turns: [{ tools: [{ name: 'Bash', input: { command: `bash -c "sleep ${marker}; echo unreachable"` } }] }, reportTurn()],
          }),
        );
      }
      await waitUntil(
        () => markers.every((marker) => pidsWithMarker(marker).length > 0),
        120_000,
        `the shells of run ${runId} never started`,
      );
      const start = performance.now();
      let published = 0;
      const cli = env.cli(['abort', runId]);
      cli.child.stdout!.on('data', () => (published ||= performance.now()));
      await waitUntil(
        () => markers.every((marker) => pidsWithMarker(marker).length === 0),
        60_000,
        `processes of run ${runId} outlived the abort`,
        5,
      );
      const gone = performance.now();
      const { code, stderr } = await cli.done;
      if (code !== 0) throw new Error(`orca abort exited ${code}: ${stderr}`);
      total.push(gone - start);
      if (published) {
        afterPublish.push(Math.max(0, gone - published));
        cliStart.push(published - start);
      }
      for (let i = 0; i < markers.length; i += 1) {
        const result = await env.result(agentJobId(runId, `t${i}`, 1));
        if (result.status !== 'aborted') throw new Error(`job t${i} of run ${runId} ended ${result.status}, not aborted`);
      }
    }
    return {
      abort_p95_ms: round(percentile(total, 95)),
      abort_p50_ms: round(percentile(total, 50)),
      after_publish_p95_ms: round(percentile(afterPublish, 95)),
      cli_start_p50_ms: round(percentile(cliStart, 50)),
      runs,
    };
  });
}

async function waitUntil(check: () => boolean, deadlineMs: number, failure: string, pollMs = 25): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(failure);
    await sleep(pollMs);
  }
}
