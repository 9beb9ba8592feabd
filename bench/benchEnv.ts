import { type ChildProcess, fork, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { accessSync, constants, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { JobWaiter } from '../coordinator/jobWaiter.js';
import type { RunStreamEntry } from '../shared/core/events/runStreamEntry.js';
import { compiledEntry, packageRoot } from '../shared/core/runtime/compiledEntry.js';
import { WORKER_NODE_FLAGS, workerProcessEnv } from '../shared/core/runtime/workerNodeFlags.js';
import { readRunEvents } from '../shared/infra/board/runEvents.js';
import type { AgentJobResult } from '../shared/infra/queue/agentJob.js';
import { AgentQueue } from '../shared/infra/queue/agentQueue.js';
import { Keys } from '../shared/infra/redis/keys.js';
import { connectRedis, redisUrl } from '../shared/infra/redis/redisConnection.js';

/**
 * Where benchmarks keep their repositories, worktrees and ORCA_HOME: ORCA_BENCH_DIR when set,
 * else /dev/shm (a tmpfs) when it can be written, else the system temp folder. On this project's
 * VMs the disk makes a 20,000-file checkout take ~20 s; on tmpfs it is under a second, so what is
 * measured is orca against git, not the disk, and a hundred checkouts fit the time budget.
 */
export function benchTempRoot(): string {
  if (process.env.ORCA_BENCH_DIR) return process.env.ORCA_BENCH_DIR;
  try {
    accessSync('/dev/shm', constants.W_OK);
    return '/dev/shm';
  } catch {
    return os.tmpdir();
  }
}

/**
 * One benchmark's orca installation, as isolated as a test's: a Redis key prefix of its own, an
 * ORCA_HOME and HOME in a temp folder, the agent queue, and real worker processes started from
 * `dist/`. Closing it stops the workers, deletes its keys and removes its folders.
 */
export class BenchEnv {
  readonly prefix = `orca-bench-${randomUUID().slice(0, 8)}`;
  readonly keys = new Keys(this.prefix);
  readonly root: string;
  readonly home: string;
  readonly redis: Redis;
  readonly queue: AgentQueue;
  readonly waiter: JobWaiter;
  readonly workers: BenchWorker[] = [];
  private readonly eventsConnection: Redis;
  private readonly queueEvents: QueueEvents;

  private constructor() {
    this.root = realpathSync(mkdtempSync(path.join(benchTempRoot(), 'orca-bench-')));
    this.home = this.dir('orca-home');
    this.redis = connectRedis();
    this.queue = new AgentQueue(this.redis, this.keys);
    this.eventsConnection = connectRedis();
    this.queueEvents = this.queue.events(this.eventsConnection);
    this.waiter = new JobWaiter(this.queue, this.queueEvents, 250);
  }

  static async open(): Promise<BenchEnv> {
    const env = new BenchEnv();
    await env.queueEvents.waitUntilReady();
    return env;
  }

  /** Runs `fn` in a fresh env, closed afterwards whatever happens. */
  static async with<T>(fn: (env: BenchEnv) => Promise<T>): Promise<T> {
    const env = await BenchEnv.open();
    try {
      return await fn(env);
    } finally {
      await env.close();
    }
  }

  dir(name: string): string {
    const dir = path.join(this.root, name);
    mkdirSync(dir, { recursive: true });
    return dir;
  }

  processEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
    return {
      ...process.env,
      REDIS_URL: redisUrl(),
      ORCA_PREFIX: this.prefix,
      ORCA_HOME: this.home,
      // No user-level ~/.claude settings or hooks of the machine change what is measured.
      HOME: this.dir('user-home'),
      ...extra,
    };
  }

  async startWorker(options: { concurrency: number; env?: NodeJS.ProcessEnv }): Promise<BenchWorker> {
    const child = fork(compiledEntry('workers/main.ts'), ['--concurrency', String(options.concurrency)], {
      cwd: packageRoot(),
      env: workerProcessEnv(this.processEnv(options.env)),
      execArgv: [...process.execArgv, ...WORKER_NODE_FLAGS],
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    const worker = new BenchWorker(child);
    this.workers.push(worker);
    await worker.ready;
    return worker;
  }

  /** `orca ARGS` in this env; `onStderr` sees its stderr as it comes (the run id is its first line). */
  cli(args: string[], options: { onStderr?: (text: string) => void; deadlineMs?: number } = {}): CliProcess {
    const child = spawn(process.execPath, [compiledEntry('coordinator/cli.ts'), ...args], {
      cwd: packageRoot(),
      env: this.processEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return new CliProcess(child, args, options);
  }

  async result(jobId: string, deadlineMs = 300_000): Promise<AgentJobResult> {
    return this.waiter.wait(jobId, AbortSignal.timeout(deadlineMs));
  }

  async events(runId: string): Promise<RunStreamEntry[]> {
    const all: RunStreamEntry[] = [];
    let after = '0';
    for (;;) {
      const page = await readRunEvents(this.redis, this.keys, runId, after, 5_000);
      if (page.length === 0) return all;
      after = page.at(-1)!.id;
      all.push(...page.map(({ entry }) => entry));
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.stop()));
    await this.queueEvents.close();
    await this.queue.close();
    this.eventsConnection.disconnect();
    let cursor = '0';
    do {
      const [next, keys] = await this.redis.scan(cursor, 'MATCH', `${this.prefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await this.redis.del(...keys);
    } while (cursor !== '0');
    this.redis.disconnect();
    rmSync(this.root, { recursive: true, force: true });
  }
}

export class BenchWorker {
  readonly pid: number;
  readonly ready: Promise<void>;
  readonly exited: Promise<unknown>;
  private log = '';

  constructor(readonly child: ChildProcess) {
    if (child.pid === undefined) throw new Error('the worker process did not start');
    this.pid = child.pid;
    child.stderr?.on('data', (chunk: Buffer) => {
      this.log = (this.log + chunk.toString()).slice(-10_000);
    });
    this.exited = once(child, 'exit');
    this.ready = new Promise<void>((resolve, reject) => {
      child.on('message', (message: { type?: string }) => (message?.type === 'ready' ? resolve() : undefined));
      void this.exited.then(() => reject(new Error(`worker ${this.pid} exited before it was ready: ${this.log}`)));
    });
    this.ready.catch(() => {});
  }

  get stderr(): string {
    return this.log;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill('SIGTERM');
    const late = await Promise.race([this.exited.then(() => false), sleep(30_000).then(() => true)]);
    if (late) {
      this.child.kill('SIGKILL');
      await this.exited;
    }
  }
}

/** A running `orca` command: its run id as soon as it prints it, and its exit. */
export class CliProcess {
  readonly runId: Promise<string>;
  readonly done: Promise<{ code: number | null; stdout: string; stderr: string }>;
  stdout = '';
  stderr = '';

  constructor(
    readonly child: ChildProcess,
    args: string[],
    options: { onStderr?: (text: string) => void; deadlineMs?: number },
  ) {
    let resolveRun!: (id: string) => void;
    let rejectRun!: (error: Error) => void;
    this.runId = new Promise((resolve, reject) => {
      resolveRun = resolve;
      rejectRun = reject;
    });
    this.runId.catch(() => {});
    child.stdout!.on('data', (chunk: Buffer) => (this.stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      this.stderr += text;
      options.onStderr?.(text);
      const match = /^orca: run (\S+)$/m.exec(this.stderr);
      if (match) resolveRun(match[1]!);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.deadlineMs ?? 600_000);
    this.done = once(child, 'close').then(([code, signal]) => {
      clearTimeout(timer);
      rejectRun(new Error(`orca ${args.join(' ')} printed no run id:\n${this.stderr}`));
      if (signal === 'SIGKILL' && code === null)
        throw new Error(`orca ${args.join(' ')} was killed (deadline or test):\n${this.stdout}\n${this.stderr}`);
      return { code: code as number | null, stdout: this.stdout, stderr: this.stderr };
    });
  }

  /** The JSON object `--json` prints, or an error with what the command printed instead. */
  async json<T>(): Promise<T> {
    const { code, stdout, stderr } = await this.done;
    try {
      return JSON.parse(stdout) as T;
    } catch {
      throw new Error(`orca exited ${code} without JSON on stdout:\n${stdout}\n${stderr}`);
    }
  }
}
