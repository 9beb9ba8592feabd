import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterEach } from 'vitest';
import { Keys } from '../../shared/infra/redis/keys.js';
import { connectRedis } from '../../shared/infra/redis/redisConnection.js';

const opened: Array<{ redis: Redis; prefix: string }> = [];

/** A Redis connection and a key prefix of this test's own; its keys are deleted after the test. */
export function testRedis(): { redis: Redis; keys: Keys; prefix: string } {
  const prefix = `orca-test-${randomUUID().slice(0, 8)}`;
  const redis = connectRedis();
  opened.push({ redis, prefix });
  return { redis, keys: new Keys(prefix), prefix };
}

export async function deleteKeys(redis: Redis, pattern: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
}

afterEach(async () => {
  while (opened.length > 0) {
    const { redis, prefix } = opened.pop()!;
    await deleteKeys(redis, `${prefix}:*`);
    redis.disconnect();
  }
});
