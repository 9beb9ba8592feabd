import { type ChildProcess, fork, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterEach } from 'vitest';
import { JobWaiter } from '../../coordinator/jobWaiter.js';
import { compiledEntry, packageRoot } from '../../shared/core/runtime/compiledEntry.js';
import type { AgentJobResult } from '../../shared/infra/queue/agentJob.js';
import { AgentQueue } from '../../shared/infra/queue/agentQueue.js';
import { Keys } from '../../shared/infra/redis/keys.js';
import { connectRedis, redisUrl } from '../../shared/infra/redis/redisConnection.js';
import { deleteKeys } from './redis.js';

/**
 * A timeout for tests that start worker processes and many agents: machines running the suite are
 * shared and may be loaded; it is a safety net, never a measure of speed.
 */
export const SLOW_TEST_MS = 300_000;

/**
 * One test's (or one test file's) orca installation: a Redis key prefix of its own, an ORCA_HOME
 * and a HOME of its own in a temp folder, the agent queue, and the real worker processes it
 * started from `dist/` (`npm test` builds it first). Closing it stops the workers (SIGTERM, then
 * SIGKILL past a generous deadline), deletes its Redis keys and removes its folders, in that
 * order, so no worker is still writing when its files go.
 */
export class OrcaTestEnv {
  readonly prefix = `orca-test-${randomUUID().slice(0, 8)}`;
  readonly keys = new Keys(this.prefix);
  readonly root: string;
  readonly home: string;
  readonly redis: Redis;
  readonly queue: AgentQueue;
  private readonly eventsConnection: Redis;
  private readonly queueEvents: QueueEvents;
  private readonly waiter: JobWaiter;
  readonly workers: WorkerProcess[] = [];
  private closed = false;

  private constructor() {
    this.root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'orca-env-')));
    this.home = this.dir('orca-home');
    this.redis = connectRedis();
    this.queue = new AgentQueue(this.redis, this.keys);
    this.eventsConnection = connectRedis();
    this.queueEvents = this.queue.events(this.eventsConnection);
    this.waiter = new JobWaiter(this.queue, this.queueEvents, 250);
  }

  /** An env closed after the current test (or, with `{ shared: true }`, by the caller). */
  static async open(options: { shared?: boolean } = {}): Promise<OrcaTestEnv> {
    const env = new OrcaTestEnv();
    if (!options.shared) perTest.push(env);
    await env.queueEvents.waitUntilReady();
    return env;
  }

  /** A folder of this env's own (created), removed when it closes. */
  dir(name: string): string {
    const dir = path.join(this.root, name);
    mkdirSync(dir, { recursive: true });
    return dir;
  }

  /** The environment orca's processes run with here: this prefix, this ORCA_HOME, a private HOME. */
  processEnv(extra: NodeJS.ProcessEnv = {}, home = this.home): NodeJS.ProcessEnv {
    return {
      ...process.env,
      REDIS_URL: redisUrl(),
      ORCA_PREFIX: this.prefix,
      ORCA_HOME: home,
      // No user-level ~/.claude settings, hooks or skills of the machine leak into the agents.
      HOME: this.dir('user-home'),
      // These suites test orchestration. Language servers (a tsserver per scripted worker, whose
      // start no model's thinking hides) are tested in tests/lsp; a test that wants them passes ORCA_LSP: 'on'.
      ORCA_LSP: 'off',
      // Where `npm test` was started: not where the CLI a test starts is run from (coordinator/userFolder.ts).
      INIT_CWD: undefined,
      ...extra,
    };
  }

  /** Starts `orca-worker` (dist/workers/main.js) and resolves once it takes jobs. */
  async startWorker(
    options: { concurrency?: number; lockDurationMs?: number; home?: string; env?: NodeJS.ProcessEnv } = {},
  ): Promise<WorkerProcess> {
    const args = ['--concurrency', String(options.concurrency ?? 2)];
    if (options.lockDurationMs) args.push('--lock-duration', String(options.lockDurationMs));
    const worker = new WorkerProcess(
      fork(compiledEntry('workers/main.ts'), args, {
        cwd: packageRoot(),
        env: this.processEnv(options.env, options.home),
        stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      }),
    );
    this.workers.push(worker);
    await worker.ready;
    return worker;
  }

  /**
   * Runs the orca CLI (`node dist/coordinator/cli.js ARGS`) in this env and collects its output.
   * Past the deadline (a safety net) it is killed and the call fails with what it printed.
   */
  async cli(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; deadlineMs?: number } = {}): Promise<CliRun> {
    const child = spawn(process.execPath, [compiledEntry('coordinator/cli.ts'), ...args], {
      cwd: options.cwd ?? packageRoot(),
      env: this.processEnv(options.env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.deadlineMs ?? 120_000);
    const [code, signal] = (await once(child, 'close')) as [number | null, NodeJS.Signals | null];
    clearTimeout(timer);
    if (signal === 'SIGKILL') throw new Error(`orca ${args.join(' ')} did not finish in time:\n${stdout}\n${stderr}`);
    return { code, stdout, stderr };
  }

  /** Pids of live processes started with this env's ORCA_PREFIX (read from /proc: Linux). */
  processesOfThisEnv(): number[] {
    const needle = Buffer.from(`ORCA_PREFIX=${this.prefix}\0`);
    const found: number[] = [];
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        if (
          !readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]?.startsWith('Z') &&
          readFileSync(`/proc/${entry}/environ`).includes(needle)
        ) {
          found.push(Number(entry));
        }
      } catch {
        // Exited since the listing, or not ours to read: not one of this env's processes.
      }
    }
    return found;
  }

  /**
   * A job's validated result. The deadline is a safety net for a slow machine, not a measure of
   * speed; past it the error carries the workers' stderr.
   */
  async result(jobId: string, deadlineMs = 240_000): Promise<AgentJobResult> {
    try {
      return await this.waiter.wait(jobId, AbortSignal.timeout(deadlineMs));
    } catch (error) {
      const logs = this.workers.map((w) => `--- worker ${w.pid}:\n${w.stderr}`).join('\n');
      throw new Error(`${(error as Error).message}\n${logs}`, { cause: error });
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all(this.workers.map((worker) => worker.stop()));
    await this.queueEvents.close();
    await this.queue.close();
    this.eventsConnection.disconnect();
    await deleteKeys(this.redis, `${this.prefix}:*`);
    this.redis.disconnect();
    rmSync(this.root, { recursive: true, force: true });
  }
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A real worker process, its stderr kept for failure messages. */
export class WorkerProcess {
  readonly pid: number;
  readonly ready: Promise<void>;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private log = '';

  constructor(readonly child: ChildProcess) {
    if (child.pid === undefined) throw new Error('the worker process did not start');
    this.pid = child.pid;
    child.stderr?.on('data', (chunk: Buffer) => {
      this.log = (this.log + chunk.toString()).slice(-20_000);
    });
    child.stdout?.resume();
    // `close`, not `exit`: by then its stderr has been read to the end.
    this.exited = once(child, 'close').then(
      ([code, signal]) => ({ code, signal }) as { code: number | null; signal: NodeJS.Signals | null },
    );
    this.ready = new Promise<void>((resolve, reject) => {
      child.on('message', (message: { type?: string }) => {
        if (message?.type === 'ready') resolve();
      });
      void this.exited.then(({ code, signal }) =>
        reject(new Error(`worker ${this.pid} exited before it was ready (${code ?? signal}): ${this.log}`)),
      );
    });
    // A rejection nobody awaits (the worker exited after it was ready) is not an error of the test.
    this.ready.catch(() => {});
  }

  get stderr(): string {
    return this.log;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** SIGTERM, and SIGKILL if it is still there after a generous deadline (a safety net). */
  async stop(deadlineMs = 30_000): Promise<void> {
    if (!this.running) return;
    this.child.kill('SIGTERM');
    const outcome = await Promise.race([this.exited, sleep(deadlineMs).then(() => 'late' as const)]);
    if (outcome === 'late') {
      this.child.kill('SIGKILL');
      await this.exited;
    }
  }
}

const perTest: OrcaTestEnv[] = [];

afterEach(async () => {
  while (perTest.length > 0) await perTest.pop()!.close();
});
