import { containmentLine } from '../shared/core/runtime/agentCgroup.js';
import { OrcaHome } from '../shared/core/runtime/orcaHome.js';
import type { SandboxMode } from '../shared/core/runtime/sandboxMode.js';
import { proxyRelayLine } from '../shared/core/sandbox/bwrap.js';
import { Keys } from '../shared/infra/redis/keys.js';
import { redisUrlFromParent } from '../shared/infra/redis/redisOverIpc.js';
import { sandboxStatus } from '../shared/policy/permissions/sandboxLine.js';
import { AgentWorker } from './agentWorker.js';
import { warmWhileIdle } from './idleWarmup.js';

export interface WorkerProcessOptions {
  concurrency: number;
  prefix?: string;
  lockDurationMs?: number;
  /** The worker's own `--sandbox` mode: `required` refuses every job it cannot sandbox. */
  sandbox?: SandboxMode;
}

/**
 * Runs this process as an orca worker until SIGINT or SIGTERM: then it stops taking jobs, aborts
 * its agents, releases their worktrees and leases, hands unfinished jobs back, and exits.
 */
export async function runWorkerProcess(options: WorkerProcessOptions): Promise<void> {
  const worker = new AgentWorker({
    redisUrl: await redisUrlFromParent(),
    keys: new Keys(options.prefix),
    home: new OrcaHome(),
    concurrency: options.concurrency,
    lockDurationMs: options.lockDurationMs,
    sandbox: options.sandbox,
  });
  // A second signal while stopping changes nothing: the first stop is already under way.
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`orca worker ${process.pid}: ${signal}, stopping (${worker.activeJobs} job(s) running)\n`);
    await worker.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  // A worker forked by a coordinator dies with it: an orphan would keep taking jobs for nobody.
  if (process.send) {
    // Its stderr is a pipe the dead coordinator read: a line written there fails (EPIPE), which
    // must not kill the worker before it has handed its jobs back. Only that error is let go.
    process.stderr.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
    });
    process.on('disconnect', () => stop('coordinator gone'));
  }
  // Said before it takes jobs. Under required without a sandbox it still runs, and refuses each job saying why.
  const sandbox = sandboxStatus(options.sandbox ?? 'auto');
  process.stderr.write(`orca worker ${process.pid}: ${sandbox.refusal ? `${sandbox.refusal}; it refuses every job` : sandbox.line}\n`);
  process.stderr.write(`orca worker ${process.pid}: ${containmentLine()}\n`);
  if (sandbox.kind === 'bwrap') process.stderr.write(`orca worker ${process.pid}: ${proxyRelayLine()}\n`);
  await worker.start();
  if (process.send) process.send({ type: 'ready', pid: process.pid });
  process.stderr.write(`orca worker ${process.pid}: taking jobs (concurrency ${options.concurrency})\n`);
  warmWhileIdle(worker);
}
