import { type ChildProcess, fork } from 'node:child_process';
import { compiledEntry } from '../shared/core/runtime/compiledEntry.js';
import { WORKER_NODE_FLAGS, workerProcessEnv } from '../shared/core/runtime/workerNodeFlags.js';
import { REDIS_OVER_IPC_ENV, REDIS_URL_REQUEST, type RedisUrlMessage } from '../shared/infra/redis/redisOverIpc.js';

/**
 * Worker processes this coordinator starts for itself (`--workers N`), so `orca run` and
 * `orca agent` work alone. They share nothing with it but Redis and the environment, and they
 * die with it (a forked worker stops when its parent's IPC channel closes).
 */
export class LocalWorkers {
  private readonly children: ChildProcess[] = [];

  /** `redisUrl`, when given, is sent to each worker over IPC (a private Redis's URL holds its password). */
  async start(
    count: number,
    options: { concurrency: number; env: NodeJS.ProcessEnv; lockDurationMs?: number; redisUrl?: string },
  ): Promise<void> {
    const entry = compiledEntry('workers/main.ts');
    const args = ['--concurrency', String(options.concurrency)];
    if (options.lockDurationMs) args.push('--lock-duration', String(options.lockDurationMs));
    await Promise.all(
      Array.from({ length: count }, () => {
        const child = fork(entry, args, {
          env: workerProcessEnv(options.redisUrl ? { ...options.env, [REDIS_OVER_IPC_ENV]: '1' } : options.env),
          execArgv: [...process.execArgv, ...WORKER_NODE_FLAGS],
          stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
          // A process group of its own: a terminal's Ctrl-C goes to the coordinator's group, and the
          // coordinator, not the signal, decides how its workers stop (they hand jobs back on SIGINT).
          detached: true,
        });
        this.children.push(child);
        const { redisUrl } = options;
        if (redisUrl) {
          child.on('message', (message: { type?: string }) => {
            if (message?.type === REDIS_URL_REQUEST.type) child.send({ type: 'redis', url: redisUrl } satisfies RedisUrlMessage);
          });
        }
        let stderr = '';
        child.stderr?.on('data', (chunk: Buffer) => {
          stderr = (stderr + chunk.toString()).slice(-4_000);
        });
        return new Promise<void>((resolve, reject) => {
          child.on('message', (message: { type?: string }) => (message?.type === 'ready' ? resolve() : undefined));
          child.once('exit', (code) => reject(new Error(`a local worker exited before it was ready (code ${code}): ${stderr.trim()}`)));
        });
      }),
    );
  }

  get pids(): number[] {
    return this.children.flatMap((child) => (child.pid === undefined ? [] : [child.pid]));
  }

  /** SIGTERM to each worker (they hand back unfinished jobs), then waits for them to exit. */
  async stop(): Promise<void> {
    await Promise.all(
      this.children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
          }),
      ),
    );
  }
}
