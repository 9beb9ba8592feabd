import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import getPort from 'get-port';
import { OrcaHome } from '../shared/core/runtime/orcaHome.js';
import { findOnPath } from '../shared/core/sandbox/bwrap.js';
import { Keys } from '../shared/infra/redis/keys.js';
import { pingRedis } from '../shared/infra/redis/redisPing.js';
import { DEFAULT_REDIS_URL, redisUrl } from '../shared/infra/redis/redisUrl.js';
import { liveRedisSecrets, secretUrl, writeRedisSecret } from './redisSecret.js';

/** `ORCA_REDIS_PRIVATE=1`: start orca's own redis-server (with a password) even when one answers at the default address. */
export const PRIVATE_REDIS_ENV = 'ORCA_REDIS_PRIVATE';

export interface RedisService {
  url: string;
  /** Set when orca started its own redis-server for this command (it has a password, in the URL). */
  private?: { pid: number; secretFile: string };
  stop(): Promise<void>;
}

/** Which Redis a command that starts a run uses, before anything is started. */
type RedisChoice = { kind: 'given'; url: string } | { kind: 'private' };

/**
 * The Redis Cluster REDIS_CLUSTER_NODES names, when set; REDIS_URL when set; else 127.0.0.1:6379
 * when something answers there (unless ORCA_REDIS_PRIVATE asks for orca's own); else a private
 * one.
 */
async function chooseRedis(env: NodeJS.ProcessEnv): Promise<RedisChoice> {
  if (env.REDIS_CLUSTER_NODES?.trim()) return { kind: 'given', url: `cluster:${env.REDIS_CLUSTER_NODES.trim()}` };
  if (env.REDIS_URL) return { kind: 'given', url: env.REDIS_URL };
  if (env[PRIVATE_REDIS_ENV] === '1') return { kind: 'private' };
  try {
    await pingRedis(DEFAULT_REDIS_URL, 1_000);
    return { kind: 'given', url: DEFAULT_REDIS_URL };
  } catch {
    return { kind: 'private' }; // Nothing at the default address: start a private one if we can.
  }
}

/**
 * The Redis a command uses (`chooseRedis`): a given one must answer; a private `redis-server` from
 * PATH is started on a free port with a generated password, stopped when the command ends. With
 * none of these, one clear line saying how to get one.
 */
export async function ensureRedis(
  env: NodeJS.ProcessEnv = process.env,
  home = new OrcaHome(env.ORCA_HOME || undefined),
): Promise<RedisService> {
  const choice = await chooseRedis(env);
  if (choice.kind === 'given') {
    await pingRedis(choice.url);
    return { url: choice.url, stop: async () => {} };
  }
  return startPrivateRedis(env, home);
}

/**
 * Where the Redis a run would use takes no password, where it is (host:port, or the cluster's
 * nodes), for the `--sandbox off` line: there, agent code running as the user can reach it.
 * Undefined when orca would start its own (it has a password).
 */
export async function passwordlessRedis(env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  const choice = await chooseRedis(env);
  if (choice.kind === 'private') return undefined;
  if (choice.url.startsWith('cluster:')) return `the cluster ${choice.url.slice('cluster:'.length)}`;
  const url = new URL(choice.url);
  return url.password ? undefined : url.host;
}

/**
 * The Redis orca's runs are on, for the commands that read or answer them (status, board, serve,
 * allow, deny, approve, reject, abort): REDIS_URL or the cluster when set, the default address when
 * it answers, else a private redis-server another orca command started here (its secret under
 * ORCA_HOME), the one that knows `run` when one is named.
 */
export async function findOrcaRedis(run?: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const choice = await chooseRedis(env);
  if (choice.kind === 'given') return choice.url;
  const candidates = liveRedisSecrets(new OrcaHome(env.ORCA_HOME || undefined)).map(secretUrl);
  for (const url of candidates) {
    if (run === undefined || (await knowsRun(url, run, env))) return url;
  }
  if (candidates.length === 0) return redisUrl(); // its ping says how to start one
  throw new Error(`no Redis orca started here knows run ${run}: is its orca run (or agent) still running?`);
}

/** Whether the Redis at `url` holds the run's event stream under this installation's prefix (ORCA_PREFIX). */
async function knowsRun(url: string, run: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  // Loaded here: the commands that start a run find their Redis without a client (redisPing.ts).
  const { connectRedis } = await import('../shared/infra/redis/redisConnection.js');
  const redis = connectRedis(url, { maxRetriesPerRequest: 1, retryStrategy: () => null });
  try {
    return (await redis.exists(new Keys(env.ORCA_PREFIX || undefined).events(run))) > 0;
  } finally {
    redis.disconnect();
  }
}

/** A redis-server of orca's own: its config (and so its password) on stdin, the password kept in ORCA_HOME/secrets. */
async function startPrivateRedis(env: NodeJS.ProcessEnv, home: OrcaHome): Promise<RedisService> {
  const server = findOnPath('redis-server', env);
  if (!server) {
    throw new Error(
      `Redis does not answer at ${DEFAULT_REDIS_URL} and redis-server is not on PATH: install Redis (apt-get install redis-server), start one (docker compose up -d redis), or set REDIS_URL.`,
    );
  }
  const port = await getPort({ host: '127.0.0.1' });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orca-redis-'));
  const password = randomBytes(24).toString('hex');
  const config = [`port ${port}`, 'bind 127.0.0.1', 'save ""', 'appendonly no', `dir "${dir}"`, `requirepass ${password}`];
  const child: ChildProcess = spawn(server, ['-'], {
    stdio: ['pipe', 'ignore', 'ignore'],
    // Out of the terminal's process group: Ctrl-C must not take Redis away from a run that is stopping.
    detached: true,
  });
  child.stdin?.end(`${config.join('\n')}\n`);
  // Dies with the command, however it ends (a second Ctrl-C exits at once).
  const killOnExit = () => child.kill('SIGTERM');
  process.once('exit', killOnExit);
  const secretFile = writeRedisSecret(home, { port, password, pid: child.pid ?? 0 });
  const url = secretUrl({ port, password, pid: child.pid ?? 0 });
  const stop = async () => {
    process.off('exit', killOnExit);
    if (child.exitCode === null && child.signalCode === null) {
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      });
    }
    rmSync(secretFile, { force: true });
    rmSync(dir, { recursive: true, force: true });
  };
  for (let attempt = 0; ; attempt += 1) {
    try {
      await pingRedis(url, 500);
      return { url, private: { pid: child.pid ?? 0, secretFile }, stop };
    } catch (error) {
      if (attempt >= 40 || child.exitCode !== null) {
        await stop();
        throw new Error(`could not start a private redis-server on port ${port}: ${(error as Error).message}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
