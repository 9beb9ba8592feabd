import { type Job, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../shared/core/events/agentEvent.js';
import type { RunStreamEntry } from '../../shared/core/events/runStreamEntry.js';
import { appendRunEvent, appendRunEvents, readRunEvents } from '../../shared/infra/board/runEvents.js';
import { AgentJobSchema } from '../../shared/infra/queue/agentJob.js';
import type { Keys } from '../../shared/infra/redis/keys.js';
import { ProgressReporter } from '../../workers/progressReporter.js';
import { testRedis } from '../support/redis.js';
import { reportTurn, scriptedJob } from '../support/scriptedJobs.js';

/** Counts the transactions a client starts: the real client, its `multi` counted and passed on. */
function countMulti(redis: Redis): { count: () => number } {
  let made = 0;
  const multi = redis.multi.bind(redis);
  redis.multi = ((...args: Parameters<Redis['multi']>) => {
    made += 1;
    return multi(...args);
  }) as Redis['multi'];
  return { count: () => made };
}

/** A job of BullMQ's, queued under the test's prefix, for the reporter's progress writes. */
async function bullJob(redis: Redis, keys: Keys): Promise<{ job: Job; close: () => Promise<void> }> {
  const queue = new Queue('progress-test', { connection: redis.duplicate(), prefix: keys.bull });
  const job = await queue.add('job', { n: 1 });
  return { job, close: () => queue.close() };
}

const turnStart = (turn: number): AgentEvent => ({ type: 'turn_start', turn, at: 1_000 + turn }) as AgentEvent;

describe("a job's event writer", () => {
  it('sends the events that come while a write is under way as one batch, in order', async () => {
    const { redis, keys } = testRedis();
    const { job, close } = await bullJob(redis, keys);
    try {
      const payload = AgentJobSchema.parse(
        scriptedJob({ runId: 'r1', taskId: 't1', repo: '/tmp/none', base: 'a'.repeat(40), turns: [reportTurn()] }),
      );
      const multis = countMulti(redis);
      const reporter = new ProgressReporter(job, redis, keys, payload);
      for (let turn = 1; turn <= 30; turn += 1) reporter.agentEvent(turnStart(turn));
      await reporter.flush();
      const entries = await readRunEvents(redis, keys, 'r1');
      expect(entries.map(({ entry }) => entry.event.turn)).toEqual(Array.from({ length: 30 }, (_, index) => index + 1));
      // The first event, the progress record it starts (a write of another kind keeps its place), then the other 29 together.
      expect(multis.count()).toBe(2);
      expect(await redis.hget(keys.task('r1', 't1'), 'updated_at')).toBe('1030');
    } finally {
      await close();
    }
  });

  it('says a run-level event is recorded only once it is, after everything sent before it', async () => {
    const { redis, keys } = testRedis();
    const { job, close } = await bullJob(redis, keys);
    try {
      const payload = AgentJobSchema.parse(
        scriptedJob({ runId: 'r1', taskId: 't1', repo: '/tmp/none', base: 'a'.repeat(40), turns: [reportTurn()] }),
      );
      const reporter = new ProgressReporter(job, redis, keys, payload);
      reporter.agentEvent(turnStart(1));
      reporter.agentEvent(turnStart(2));
      await reporter.runLevelEvent({ type: 'notice', level: 'info', message: 'answered' });
      const entries = await readRunEvents(redis, keys, 'r1');
      expect(entries.map(({ entry }) => entry.event.type)).toEqual(['turn_start', 'turn_start', 'notice']);
    } finally {
      await close();
    }
  });
});

describe('appendRunEvents', () => {
  it('writes the board as the same entries appended one by one do', async () => {
    const { redis, keys } = testRedis();
    const entries = (run: string): RunStreamEntry[] =>
      [1, 2, 3].map((turn) => ({ run_id: run, task_id: 't1', source: 'agent', event: { type: 'turn_start', turn, at: 5_000 + turn } }));
    await appendRunEvents(redis, keys, entries('batched'));
    for (const entry of entries('alone')) await appendRunEvent(redis, keys, entry);
    const board = async (run: string) => ({ ...(await redis.hgetall(keys.task(run, 't1'))), run_id: 'either' });
    expect(await board('batched')).toEqual(await board('alone'));
    expect((await readRunEvents(redis, keys, 'batched')).map(({ entry }) => entry.event)).toEqual(entries('x').map((entry) => entry.event));
  });

  it('records the others, in order, when one entry of a batch is malformed, and refuses that one naming its field', async () => {
    const { redis, keys } = testRedis();
    const good = (turn: number): RunStreamEntry => ({
      run_id: 'r1',
      task_id: 't1',
      source: 'agent',
      event: { type: 'turn_start', turn, at: turn },
    });
    const bad = { run_id: 'r1', task_id: 't1', source: 'agent', event: { type: 'turn_start', turn: 'two', at: 2 } } as RunStreamEntry;
    await expect(appendRunEvents(redis, keys, [good(1), bad, good(3)])).rejects.toThrow(/turn/);
    expect((await readRunEvents(redis, keys, 'r1')).map(({ entry }) => entry.event.turn)).toEqual([1, 3]);
  });
});
