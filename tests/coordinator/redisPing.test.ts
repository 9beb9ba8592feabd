import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ensureRedis, PRIVATE_REDIS_ENV, type RedisService } from '../../coordinator/redisService.js';
import { pingRedis } from '../../shared/infra/redis/redisPing.js';
import { tempDir } from '../support/tempDir.js';

/**
 * `orca run` asks whether its Redis answers without a Redis client (redisPing.ts): AUTH and PING
 * over one connection. Against the machine's Redis, a private redis-server with a password, and a
 * server that is not Redis.
 */

const closing: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (let next = closing.pop(); next; next = closing.pop()) await next();
});

/** A TCP server on a loopback port that answers every connection as an HTTP server would. */
async function notRedis(): Promise<number> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.end('HTTP/1.1 400 Bad Request\r\n\r\n');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  closing.push(async () => {
    for (const socket of sockets) socket.destroy();
    server.close();
    await once(server, 'close');
  });
  return (server.address() as { port: number }).port;
}

async function privateRedis(): Promise<RedisService> {
  const env: NodeJS.ProcessEnv = { ...process.env, ORCA_HOME: tempDir(), [PRIVATE_REDIS_ENV]: '1' };
  delete env.REDIS_URL;
  delete env.REDIS_CLUSTER_NODES;
  const service = await ensureRedis(env);
  closing.push(() => service.stop());
  return service;
}

describe('pingRedis, without a Redis client', () => {
  it('resolves for the Redis at 127.0.0.1:6379, and for it given a password it does not need (as ioredis goes on)', async () => {
    await expect(pingRedis('redis://127.0.0.1:6379')).resolves.toBeUndefined();
    await expect(pingRedis('redis://:unneeded@127.0.0.1:6379')).resolves.toBeUndefined();
  });

  it('resolves with the password of a private redis-server, and names the refusal without it or with a wrong one', async () => {
    const service = await privateRedis();
    await expect(pingRedis(service.url)).resolves.toBeUndefined();
    const bare = new URL(service.url);
    bare.password = '';
    await expect(pingRedis(bare.toString())).rejects.toThrow(/^Redis does not answer at redis:\/\/127\.0\.0\.1:\d+\/? \(NOAUTH /);
    bare.password = 'wrong';
    await expect(pingRedis(bare.toString())).rejects.toThrow(/\((WRONGPASS|ERR invalid password)/);
  });

  it('says a server that is not Redis is not one, and a closed port refuses', async () => {
    const port = await notRedis();
    await expect(pingRedis(`redis://127.0.0.1:${port}`)).rejects.toThrow(
      `Redis does not answer at redis://127.0.0.1:${port} (not a Redis reply: HTTP/1.1 400 Bad Request): start one`,
    );
    await expect(pingRedis('redis://127.0.0.1:1')).rejects.toThrow(
      'Redis does not answer at redis://127.0.0.1:1 (connect ECONNREFUSED 127.0.0.1:1)',
    );
  });
});
