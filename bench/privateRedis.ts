import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import getPort from 'get-port';
import { pingRedis } from '../shared/infra/redis/redisConnection.js';

/**
 * A redis-server of the benchmark's own on a free port, nothing saved: what it counts
 * (`INFO commandstats`, its CPU time) is this benchmark's traffic alone, not the tests' and
 * other benchmarks' that share 127.0.0.1:6379. `withRedisUrl` points REDIS_URL at it for the
 * benchmark's connections and the workers it starts.
 */
export class PrivateRedis {
  private constructor(
    readonly url: string,
    readonly port: number,
    private readonly child: ChildProcess,
    private readonly dir: string,
  ) {}

  static async start(): Promise<PrivateRedis> {
    const port = await getPort({ host: '127.0.0.1' });
    const dir = mkdtempSync(path.join(os.tmpdir(), 'orca-bench-redis-'));
    const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
      stdio: 'ignore',
    });
    const redis = new PrivateRedis(`redis://127.0.0.1:${port}`, port, child, dir);
    for (let attempt = 0; ; attempt += 1) {
      try {
        await pingRedis(redis.url, 500);
        return redis;
      } catch (error) {
        if (attempt >= 50 || child.exitCode !== null) {
          await redis.stop();
          throw new Error(`could not start redis-server on port ${port} (is it on PATH? scripts/system-tools.sh installs it): ${error}`);
        }
        await sleep(100);
      }
    }
  }

  /** The server's CPU time so far (user + system), ms, from /proc. */
  cpuMs(): number {
    const fields = readFileSync(`/proc/${this.child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // utime and stime are fields 14 and 15 of stat; [0] here is field 3.
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  }

  /** Runs `fn` with REDIS_URL naming this server (connections made and workers started inside it use it). */
  async withRedisUrl<T>(fn: () => Promise<T>): Promise<T> {
    const before = process.env.REDIS_URL;
    process.env.REDIS_URL = this.url;
    try {
      return await fn();
    } finally {
      if (before === undefined) delete process.env.REDIS_URL;
      else process.env.REDIS_URL = before;
    }
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = once(this.child, 'exit');
      this.child.kill('SIGTERM');
      await exited;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
