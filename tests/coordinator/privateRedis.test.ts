import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { ensureRedis, findOrcaRedis, PRIVATE_REDIS_ENV, passwordlessRedis, type RedisService } from '../../coordinator/redisService.js';
import { OrcaServices } from '../../coordinator/services.js';
import { Keys } from '../../shared/infra/redis/keys.js';
import { sandboxStatus } from '../../shared/policy/permissions/sandboxLine.js';
import { tempDir } from '../support/tempDir.js';

/**
 * Redis answers only to orca (issue 31): a redis-server orca starts itself has a generated
 * password, given on stdin, kept in ORCA_HOME/secrets (0600 in 0700), handed to local workers over
 * IPC; orca's other commands find it there.
 */

const started: Array<{ stop(): Promise<void> } | { close(): Promise<void> }> = [];
afterEach(async () => {
  for (let next = started.pop(); next; next = started.pop()) await ('stop' in next ? next.stop() : next.close());
});

function privateEnv(home: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ORCA_HOME: home, [PRIVATE_REDIS_ENV]: '1', ...extra };
  delete env.REDIS_URL;
  delete env.REDIS_CLUSTER_NODES;
  return env;
}

async function startPrivate(home: string): Promise<RedisService> {
  const service = await ensureRedis(privateEnv(home));
  started.push(service);
  return service;
}

/** Whether a client without the password is refused (NOAUTH). */
async function refusedWithoutPassword(url: string): Promise<string> {
  const bare = new URL(url);
  bare.password = '';
  const client = new Redis(bare.toString(), {
    lazyConnect: true,
    enableReadyCheck: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    return String(await client.ping());
  } catch (error) {
    return (error as Error).message;
  } finally {
    client.disconnect();
  }
}

describe('a redis-server orca starts itself', () => {
  it('has a generated password, kept 0600 in a 0700 folder under ORCA_HOME, never on its command line or in its environment', async () => {
    const home = tempDir();
    const service = await startPrivate(home);
    const { port, password } = new URL(service.url);
    expect(password).toMatch(/^[0-9a-f]{48}$/);
    expect(await refusedWithoutPassword(service.url)).toMatch(/NOAUTH/);

    const secretFile = path.join(home, 'secrets', `redis-${port}.json`);
    expect(service.private?.secretFile).toBe(secretFile);
    expect(statSync(path.dirname(secretFile)).mode & 0o777).toBe(0o700);
    expect(statSync(secretFile).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(secretFile, 'utf8'))).toEqual({ port: Number(port), password, pid: service.private?.pid });

    const pid = service.private!.pid;
    expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8')).not.toContain(password);
    expect(readFileSync(`/proc/${pid}/environ`, 'utf8')).not.toContain(password);

    await service.stop();
    started.pop();
    expect(() => statSync(secretFile)).toThrow(/ENOENT/);
  });

  it("is found by orca's other commands through its secret: the one that knows the run named", async () => {
    const home = tempDir();
    const first = await startPrivate(home);
    const second = await startPrivate(home);
    const keys = new Keys();
    const client = new Redis(second.url);
    try {
      await client.xadd(keys.events('r-known'), '*', 'entry', '{}');
      expect(await findOrcaRedis('r-known', privateEnv(home))).toBe(second.url);
      expect([first.url, second.url]).toContain(await findOrcaRedis(undefined, privateEnv(home)));
      await expect(findOrcaRedis('r-unknown', privateEnv(home))).rejects.toThrow(/no Redis orca started here knows run r-unknown/);
    } finally {
      await client.del(keys.events('r-known'));
      client.disconnect();
    }
  });

  it('reaches the local workers over IPC: their environment holds neither its URL nor its password', async () => {
    const home = tempDir();
    const services = await OrcaServices.open({ workers: 1, env: privateEnv(home, { ORCA_PREFIX: `orca-test-pw-${process.pid}` }) });
    started.push(services);
    const { password } = new URL(services.redisService.url);
    expect(services.redisService.private).toBeDefined();
    const [pid] = services.workers.pids;
    const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    expect(environ.filter((entry) => entry.includes(password) || entry.startsWith('REDIS_URL='))).toEqual([]);
    // The worker took its connection from the message: it is ready, so it reached the server.
    expect(await services.redis.client('LIST')).toMatch(/cmd=/);
  });
});

describe('the Redis in use without a password', () => {
  it('is named by where it is; a URL with a password, or a Redis orca starts, is not', async () => {
    const base = { ...process.env, REDIS_CLUSTER_NODES: '' };
    expect(await passwordlessRedis({ ...base, REDIS_URL: 'redis://127.0.0.1:6379' })).toBe('127.0.0.1:6379');
    expect(await passwordlessRedis({ ...base, REDIS_URL: 'redis://orca:s3cret@127.0.0.1:6379' })).toBeUndefined();
    expect(await passwordlessRedis({ ...base, REDIS_URL: '', [PRIVATE_REDIS_ENV]: '1' })).toBeUndefined();
  });

  it('is said on the --sandbox off line, and only then', () => {
    const open = sandboxStatus('off', { passwordlessRedis: '127.0.0.1:6379' }).line;
    expect(open).toMatch(/, and orca's Redis \(127\.0\.0\.1:6379\), which takes no password$/);
    expect(sandboxStatus('off', {}).line).not.toContain('Redis');
  });
});
