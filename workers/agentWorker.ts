import os from 'node:os';
import { DelayedError, type Job, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { WorktreePool } from '../shared/core/git/worktreePool.js';
import { sweepStaleCgroups } from '../shared/core/runtime/agentCgroup.js';
import type { OrcaHome } from '../shared/core/runtime/orcaHome.js';
import { killAllProcessGroups } from '../shared/core/runtime/processGroup.js';
import type { SandboxMode } from '../shared/core/runtime/sandboxMode.js';
import { PortLeaser } from '../shared/infra/ports/portLease.js';
import type { AgentJob, AgentJobResult } from '../shared/infra/queue/agentJob.js';
import { subscribeAborts } from '../shared/infra/queue/runAbort.js';
import { AGENT_QUEUE, type Keys } from '../shared/infra/redis/keys.js';
import { connectRedis } from '../shared/infra/redis/redisConnection.js';
import { runAgentJob } from './runAgentJob.js';

export interface AgentWorkerOptions {
  redisUrl?: string;
  keys: Keys;
  home: OrcaHome;
  concurrency: number;
  /** How long a job's lock lives without renewal: a dead worker's job is taken over after about this. */
  lockDurationMs?: number;
  userClaudeDir?: string;
  /** The worker's own `--sandbox` mode (ORCA_SANDBOX by default): `required` refuses every job it cannot sandbox. */
  sandbox?: SandboxMode;
  log?: (line: string) => void;
}

const SHUTDOWN = 'worker shutting down';

/**
 * A worker process's side of the queue: takes agent jobs (up to `concurrency` at once), runs each
 * with its own worktree, ports and cancel signal, and cancels the jobs of a run when an abort for
 * it is published. Stopping puts its running jobs back on the queue for another worker.
 */
export class AgentWorker {
  private readonly connection: Redis;
  private readonly subscriber: Redis;
  private readonly commands: Redis;
  private worker?: Worker<AgentJob, AgentJobResult>;
  /** Running jobs by id, with their run. */
  private readonly running = new Map<string, string>();
  /** The agent slots (0 … concurrency-1) a job runs in, taken at its start and given back at its end. */
  private readonly busySlots = new Set<number>();
  private stopping = false;
  /** Ready worktrees for its jobs, as many as its slots by default (ORCA_POOL_SIZE). */
  private readonly pool: WorktreePool;

  constructor(private readonly options: AgentWorkerOptions) {
    this.pool = new WorktreePool(options.home, { slots: options.concurrency, log: (line) => this.log(line) });
    this.connection = connectRedis(options.redisUrl);
    this.subscriber = connectRedis(options.redisUrl);
    this.commands = connectRedis(options.redisUrl);
  }

  async start(): Promise<void> {
    const { keys } = this.options;
    this.options.home.ensureWritable();
    // A worker killed with SIGKILL whose watchdog died too may have left agents running.
    const swept = await sweepStaleCgroups();
    if (swept.length > 0) this.log(`ended the agent processes left by gone processes (cgroups ${swept.join(', ')})`);
    await subscribeAborts(this.subscriber, keys, (runId, reason) => this.abortRun(runId, reason));
    const leaser = new PortLeaser(this.commands, keys);
    const lockDuration = this.options.lockDurationMs ?? 30_000;
    this.worker = new Worker<AgentJob, AgentJobResult>(
      AGENT_QUEUE,
      async (job: Job, token?: string, signal?: AbortSignal) => {
        const id = String(job.id);
        this.running.set(id, String((job.data as { run_id?: unknown }).run_id ?? ''));
        const controller = new AbortController();
        signal?.addEventListener('abort', () => controller.abort(signal.reason), { once: true });
        const slot = this.takeSlot();
        try {
          const result = await runAgentJob(job, controller.signal, {
            redis: this.commands,
            keys,
            home: this.options.home,
            leaser,
            userClaudeDir: this.options.userClaudeDir,
            sandbox: this.options.sandbox,
            handingBack: () => this.stopping,
            slot,
            pool: this.pool,
          });
          if (this.stopping && result.status === 'aborted') {
            // Stopped by our own shutdown, not by the run: hand the job to another worker.
            await job.moveToDelayed(Date.now(), token);
            throw new DelayedError();
          }
          // Stamped for the benchmarks' split of a job's end (bench/jobEndPhases.ts).
          return result.end_steps ? { ...result, end_steps: { ...result.end_steps, published: Date.now() } } : result;
        } finally {
          this.running.delete(id);
          this.busySlots.delete(slot);
        }
      },
      {
        connection: this.connection,
        prefix: keys.bull,
        concurrency: this.options.concurrency,
        lockDuration,
        stalledInterval: Math.max(1_000, Math.floor(lockDuration / 2)),
        maxStalledCount: 2,
      },
    );
    this.worker.on('error', (error) => this.log(`worker error: ${error.message}`));
    await this.worker.waitUntilReady();
  }

  /** Cancels this worker's jobs of a run; their agents see the abort at once. */
  abortRun(runId: string, reason: string): number {
    let cancelled = 0;
    for (const [jobId, run] of this.running) {
      if (run === runId && this.worker?.cancelJob(jobId, reason)) cancelled += 1;
    }
    if (cancelled > 0) this.log(`aborted ${cancelled} job(s) of run ${runId}: ${reason}`);
    return cancelled;
  }

  /** The lowest slot no running job holds. */
  private takeSlot(): number {
    let slot = 0;
    while (this.busySlots.has(slot)) slot += 1;
    this.busySlots.add(slot);
    return slot;
  }

  get activeJobs(): number {
    return this.running.size;
  }

  /**
   * Stops taking jobs, aborts the running agents (their shells' process groups die with them),
   * releases worktrees and leases as each job unwinds, puts the jobs back on the queue, and
   * closes the connections.
   */
  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.worker?.cancelAllJobs(SHUTDOWN);
    await this.worker?.close();
    // No pool work outlives the worker: a checkout under way is stopped, its worktree removed.
    await this.pool.close();
    await killAllProcessGroups();
    this.subscriber.disconnect();
    this.commands.disconnect();
    this.connection.disconnect();
  }

  private log(line: string): void {
    (this.options.log ?? ((text: string) => process.stderr.write(`orca worker ${os.hostname()}:${process.pid}: ${text}\n`)))(line);
  }
}
