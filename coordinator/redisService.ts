import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import getPort from 'get-port';
import { DEFAULT_REDIS_URL, pingRedis } from '../shared/infra/redis/redisConnection.js';
import { findOnPath } from '../shared/policy/permissions/sandbox.js';

export interface RedisService {
  url: string;
  /** Set when orca started its own redis-server for this command. */
  private?: { pid: number };
  stop(): Promise<void>;
}

/**
 * The Redis a command uses: the Redis Cluster REDIS_CLUSTER_NODES names, when set; REDIS_URL when set (it must answer); else 127.0.0.1:6379 when
 * something answers there; else a private `redis-server` from PATH on a free port, stopped when
 * the command ends. With none of these, one clear line saying how to get one.
 */
export async function ensureRedis(env: NodeJS.ProcessEnv = process.env): Promise<RedisService> {
  if (env.REDIS_CLUSTER_NODES?.trim()) {
    // A cluster is the user's: it must answer, and is never replaced by a private server.
    const cluster = `cluster:${env.REDIS_CLUSTER_NODES.trim()}`;
    await pingRedis(cluster);
    return { url: cluster, stop: async () => {} };
  }
  const configured = env.REDIS_URL;
  if (configured) {
    await pingRedis(configured);
    return { url: configured, stop: async () => {} };
  }
  try {
    await pingRedis(DEFAULT_REDIS_URL, 1_000);
    return { url: DEFAULT_REDIS_URL, stop: async () => {} };
  } catch {
    // Nothing at the default address: start a private one if we can.
  }
  const server = findOnPath('redis-server', env);
  if (!server) {
    throw new Error(
      `Redis does not answer at ${DEFAULT_REDIS_URL} and redis-server is not on PATH: install Redis (apt-get install redis-server), start one (docker compose up -d redis), or set REDIS_URL.`,
    );
  }
  const port = await getPort({ host: '127.0.0.1' });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orca-redis-'));
  const child: ChildProcess = spawn(
    server,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    {
      stdio: 'ignore',
      // Out of the terminal's process group: Ctrl-C must not take Redis away from a run that is stopping.
      detached: true,
    },
  );
  // Dies with the command, however it ends (a second Ctrl-C exits at once).
  const killOnExit = () => child.kill('SIGTERM');
  process.once('exit', killOnExit);
  const url = `redis://127.0.0.1:${port}`;
  const stop = async () => {
    process.off('exit', killOnExit);
    if (child.exitCode === null && child.signalCode === null) {
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      });
    }
    rmSync(dir, { recursive: true, force: true });
  };
  for (let attempt = 0; ; attempt += 1) {
    try {
      await pingRedis(url, 500);
      return { url, private: { pid: child.pid ?? 0 }, stop };
    } catch (error) {
      if (attempt >= 40 || child.exitCode !== null) {
        await stop();
        throw new Error(`could not start a private redis-server on port ${port}: ${(error as Error).message}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
