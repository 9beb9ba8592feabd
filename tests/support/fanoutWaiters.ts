import type { Redis } from 'ioredis';

/**
 * How many connections are blocked waiting on a fan-out gate (fanoutGate.ts waits with BLMOVE,
 * which nothing else in orca uses): lets a test act once agents are held, without a clock.
 */
export async function waitersOnGates(redis: Redis): Promise<number> {
  const clients = (await redis.client('LIST')) as string;
  return clients.split('\n').filter((line) => / cmd=blmove /.test(line)).length;
}
