import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import type { RunStreamEntry } from '../../shared/core/events/runStreamEntry.js';
import { FirstWrites } from '../../shared/infra/board/firstWrites.js';
import { projectEntry } from '../../shared/infra/board/projectEvent.js';
import type { Keys } from '../../shared/infra/redis/keys.js';
import { testRedis } from '../support/redis.js';

/** One agent event of task t1 projected as appendRunEvent does, with a memo of the test's own. */
async function project(redis: Redis, keys: Keys, made: FirstWrites, at: number): Promise<void> {
  const entry = { run_id: 'r1', task_id: 't1', source: 'agent', event: { type: 'turn_start', turn: 1, at } } as RunStreamEntry;
  const tx = redis.multi();
  const firsts = projectEntry(tx, keys, entry, made);
  const replies = await tx.exec();
  expect(replies?.every(([error]) => error === null)).toBe(true);
  made.remember(firsts);
}

describe("the board's first-seen writes", () => {
  it('are sent once per record and process, and sent again by a process that does not know them', async () => {
    const { redis, keys } = testRedis();
    const made = new FirstWrites();
    await project(redis, keys, made, 1_000);
    expect(await redis.hget(keys.task('r1', 't1'), 'created_at')).toBe('1000');
    expect(await redis.zscore(keys.runTasks('r1'), 't1')).toBe('1000');
    expect(await redis.zscore(keys.runs(), 'r1')).toBe('1000');

    // Gone behind this process's back: it does not write them again, as they change nothing once made.
    await redis.hdel(keys.task('r1', 't1'), 'created_at');
    await project(redis, keys, made, 2_000);
    expect(await redis.hget(keys.task('r1', 't1'), 'created_at')).toBeNull();
    expect(await redis.hget(keys.task('r1', 't1'), 'updated_at')).toBe('2000');

    // Another process (a memo of its own) sends them: NX, so what is there is kept and what is missing is made.
    await project(redis, keys, new FirstWrites(), 3_000);
    expect(await redis.hget(keys.task('r1', 't1'), 'created_at')).toBe('3000');
    expect(await redis.hget(keys.run('r1'), 'created_at')).toBe('1000');
    expect(await redis.zscore(keys.runTasks('r1'), 't1')).toBe('1000');
  });
});
