import { describe, expect, it } from 'vitest';
import { RedisTaskStore } from '../../shared/infra/tasks/redisTaskStore.js';
import { TaskRuleError } from '../../shared/infra/tasks/taskRules.js';
import { testRedis } from '../support/redis.js';

function store(listId = 'worker-t1') {
  const { redis, keys } = testRedis();
  return { store: new RedisTaskStore(redis, keys, 'run-1', listId), redis, keys };
}

const statuses = async (tasks: RedisTaskStore) => Object.fromEntries((await tasks.list()).map((task) => [task.id, task.status]));

describe('the Redis task store', () => {
  it('numbers new tasks 1, 2, 3…, keeps them in creation order, each in a hash of its own', async () => {
    const { store: tasks, redis, keys } = store();
    for (const subject of ['Write the parser', 'Add tests', 'Verify the parser'])
      await tasks.create({ subject, description: `${subject}.` });
    expect((await tasks.list()).map((task) => [task.id, task.subject, task.status])).toEqual([
      ['1', 'Write the parser', 'pending'],
      ['2', 'Add tests', 'pending'],
      ['3', 'Verify the parser', 'pending'],
    ]);
    const hash = await redis.hgetall(keys.taskListTask('run-1', 'worker-t1', '2'));
    expect(hash).toMatchObject({ id: '2', subject: 'Add tests', status: 'pending', blockedBy: '[]', version: '1' });
  });

  it("keeps the coordinator's named subtasks and one list per agent apart", async () => {
    const { redis, keys } = testRedis();
    const run = new RedisTaskStore(redis, keys, 'run-1', 'run');
    const agent = new RedisTaskStore(redis, keys, 'run-1', 't1');
    await run.create({ id: 't1', subject: 'Parser', description: 'p' });
    await run.create({ id: 't2', subject: 'CLI', description: 'c', blockedBy: ['t1'] });
    await agent.create({ subject: 'Read the grammar', description: 'g' });
    expect((await run.list()).map((task) => [task.id, task.blockedBy])).toEqual([
      ['t1', []],
      ['t2', ['t1']],
    ]);
    expect((await run.get('t1'))!.blocks).toEqual(['t2']);
    expect((await agent.list()).map((task) => task.id)).toEqual(['1']);
    await expect(run.create({ id: 't1', subject: 'again', description: 'x' })).rejects.toThrow('there is already a task #t1');
  });

  it('moves tasks pending → in_progress → completed, and refuses moves the rules do not allow', async () => {
    const { store: tasks } = store();
    await tasks.create({ subject: 'a', description: 'a' });
    expect((await tasks.update('1', { status: 'in_progress', activeForm: 'Doing a' })).task).toMatchObject({
      status: 'in_progress',
      activeForm: 'Doing a',
      version: 2,
    });
    expect((await tasks.update('1', { status: 'completed' })).task.status).toBe('completed');
    await expect(tasks.update('1', { status: 'in_progress' })).rejects.toThrow(
      'task #1 is completed; it cannot move to in_progress (completed is final)',
    );
    await expect(tasks.update('1', { status: 'blocked' })).rejects.toThrow(/never set blocked by hand.*use addBlockedBy/);
    await expect(tasks.update('9', { status: 'completed' })).rejects.toThrow('there is no task #9 (the tasks are #1)');
  });

  it('a task cannot start before what it is blocked by completes; a failed or cancelled dependency blocks it, transitively, and a retry frees it', async () => {
    const { store: tasks } = store();
    await tasks.create({ subject: 'schema', description: 's' });
    await tasks.create({ subject: 'api', description: 'a', blockedBy: ['1'] });
    await tasks.create({ subject: 'ui', description: 'u', blockedBy: ['2'] });
    await expect(tasks.update('2', { status: 'in_progress' })).rejects.toThrow(
      'task #2 cannot be started yet: it is blocked by #1 (pending), which must complete first',
    );

    await tasks.update('1', { status: 'in_progress' });
    const failed = await tasks.update('1', { status: 'failed' });
    expect(failed.changed.map((task) => [task.id, task.status])).toEqual([
      ['1', 'failed'],
      ['2', 'blocked'],
      ['3', 'blocked'],
    ]);
    await expect(tasks.update('2', { status: 'in_progress' })).rejects.toThrow(
      'task #2 is blocked because #1 failed; it cannot move to in_progress (from blocked it can move to cancelled)',
    );

    await tasks.update('1', { status: 'in_progress' });
    expect(await statuses(tasks)).toEqual({ 1: 'in_progress', 2: 'pending', 3: 'pending' });
    await tasks.update('1', { status: 'cancelled' });
    expect(await statuses(tasks)).toEqual({ 1: 'cancelled', 2: 'blocked', 3: 'blocked' });
  });

  it('refuses dependencies on missing tasks, on itself, and cycles', async () => {
    const { store: tasks } = store();
    await tasks.create({ subject: 'a', description: 'a' });
    await tasks.create({ subject: 'b', description: 'b', blockedBy: ['1'] });
    await expect(tasks.update('1', { addBlockedBy: ['2'] })).rejects.toThrow(
      '#1 cannot wait for #2: #2 already waits (directly or not) for #1, which would be a cycle',
    );
    await expect(tasks.update('1', { addBlockedBy: ['1'] })).rejects.toThrow('task #1 cannot depend on itself');
    await expect(tasks.update('1', { addBlocks: ['7'] })).rejects.toThrow('there is no task #7 to link to');
    await expect(tasks.create({ subject: 'c', description: 'c', blockedBy: ['8'] })).rejects.toBeInstanceOf(TaskRuleError);
    // A refused write changes nothing.
    expect((await tasks.get('1'))!).toMatchObject({ blockedBy: [], blocks: ['2'], version: 2 });
  });

  it('removes a task with every link to it, freeing what only it blocked', async () => {
    const { store: tasks } = store();
    await tasks.create({ subject: 'a', description: 'a' });
    await tasks.create({ subject: 'b', description: 'b', blockedBy: ['1'] });
    await tasks.update('1', { status: 'failed' });
    expect((await tasks.get('2'))!.status).toBe('blocked');
    const changed = await tasks.remove('1');
    expect(changed.map((task) => [task.id, task.status, task.blockedBy])).toEqual([['2', 'pending', []]]);
    expect((await tasks.list()).map((task) => task.id)).toEqual(['2']);
  });

  it('two writers at once (the coordinator and a tool) both land: a stale write is retried, never lost', async () => {
    const { redis, keys } = testRedis();
    const first = new RedisTaskStore(redis, keys, 'run-1', 'shared');
    const second = new RedisTaskStore(redis, keys, 'run-1', 'shared');
    await first.create({ subject: 'a', description: 'a' });
    await Promise.all([
      ...Array.from({ length: 10 }, (_, index) => first.update('1', { metadata: { [`first${index}`]: index } })),
      ...Array.from({ length: 10 }, (_, index) => second.update('1', { metadata: { [`second${index}`]: index } })),
    ]);
    const task = (await first.get('1'))!;
    expect(Object.keys(task.metadata)).toHaveLength(20);
    expect(task.version).toBe(21);
  });

  it('a hash that is not a task is an error naming the task and the field, not a silently empty list', async () => {
    const { store: tasks, redis, keys } = store();
    await tasks.create({ subject: 'a', description: 'a' });
    await redis.hset(keys.taskListTask('run-1', 'worker-t1', '1'), 'blockedBy', 'not json');
    await expect(tasks.list()).rejects.toThrow('task 1 of list worker-t1 (run run-1) in Redis is invalid: blockedBy: is not JSON');
  });
});
