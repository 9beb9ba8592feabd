import { describe, expect, it } from 'vitest';
import { latestRunId, listRuns, readRunBoard } from '../../shared/infra/board/readBoard.js';
import { appendRunEvent, readRunEvents } from '../../shared/infra/board/runEvents.js';
import { publishAbort } from '../../shared/infra/queue/runAbort.js';
import { Keys } from '../../shared/infra/redis/keys.js';
import { testRedis } from '../support/redis.js';
import { RunEvents } from './runEvents.js';

describe('the board state, projected from the run stream', () => {
  it('follows a coordinator run from creation to its end, task by task', async () => {
    const { redis, keys } = testRedis();
    const run = new RunEvents(redis, keys, 'r1');
    await run.created('/repos/shop');
    await run.run({ type: 'run_phase', phase: 'dispatching' });
    await run.task('t1');
    await run.task('t2', ['t1']);
    await run.run({ type: 'dag_note', message: 't2 waits for t1: both touch src/cart.ts', task_id: 't2' });
    await run.state('t1', 'queued');
    await run.starts('t1');

    let board = (await readRunBoard(redis, keys, 'r1'))!;
    expect(board.run).toMatchObject({
      kind: 'run',
      state: 'running',
      phase: 'dispatching',
      repo: '/repos/shop',
      task: 'add a discount to the cart',
    });
    const [t1, t2] = board.tasks;
    expect(t1).toMatchObject({
      task_id: 't1',
      status: 'running',
      role: 'worker',
      activity: 'Bash npm test -- cart',
      worktree: '/tmp/wt/t1',
      branch: 'orca/r1/t1',
      ports: [41000, 41001],
      turns: 1,
      tool_calls: 1,
      usage: { input_tokens: 100, output_tokens: 20, cache_read_tokens: 30, cache_creation_tokens: 5, thinking_tokens: 0 },
    });
    expect(t1!.cost_usd).toBeCloseTo(0.01);
    expect(t2).toMatchObject({ task_id: 't2', status: 'pending', depends_on: ['t1'], activity: 'waits for t1' });
    expect(board.notes).toEqual([expect.objectContaining({ message: 't2 waits for t1: both touch src/cart.ts', task_id: 't2' })]);

    await run.finishes('t1');
    await run.merged('t1');
    await run.run({
      type: 'check',
      command: 'npm test',
      exit_code: 0,
      tests_executed: 12,
      tree: 'd'.repeat(40),
      log: '/tmp/checks/1.log',
      task_id: 't1',
    });
    await run.run({ type: 'check', command: 'npm test', exit_code: 1, tests_executed: 12, tree: 'e'.repeat(40), log: '/tmp/checks/2.log' });
    await run.run({ type: 'gate', name: 'zero_tests', ok: true, reason: '12 tests ran' });
    await run.run({ type: 'verdict', status: 'FAIL', detail: 'integration tests fail' });
    const usage = { input_tokens: 500, output_tokens: 60, cache_read_tokens: 0, cache_creation_tokens: 0, thinking_tokens: 0 };
    await run.run({ type: 'run_end', status: 'FAIL', head: 'e'.repeat(40), usage, cost_usd: 0.5, detail: '1 of 2 tasks merged' });

    board = (await readRunBoard(redis, keys, 'r1'))!;
    expect(board.run).toMatchObject({ state: 'FAIL', verdict: 'FAIL', head: 'e'.repeat(40), usage, cost_usd: 0.5, ended_at: run.now });
    expect(board.tasks[0]).toMatchObject({
      status: 'merged',
      merge_outcome: 'merged',
      merge_commit: 'd'.repeat(40),
      commit: 'c'.repeat(40),
      host: 'host-1',
      pid: 4242,
      transcript: '/tmp/sessions/t1/transcript.jsonl',
      end_reason: 'report',
      turns: 2,
      evidence: [expect.objectContaining({ kind: 'check', exit_code: 0, log: '/tmp/checks/1.log' })],
    });
    expect(board.tasks[0]!.current_tool).toBeUndefined();
    // Started when its workspace was ready; ended when its agent did, not when it was merged later.
    expect(board.tasks[0]!.ended_at! - board.tasks[0]!.started_at!).toBe(7_000);
    expect(board.evidence.map((item) => item.kind)).toEqual(['check', 'gate']);
  });

  it('sums tokens over a task’s attempts and over the run, and restarts the timings of a retry', async () => {
    const { redis, keys } = testRedis();
    const run = new RunEvents(redis, keys, 'r2');
    await run.created();
    await run.task('t1');
    await run.state('t1', 'queued', 1);
    await run.starts('t1');
    await run.agent('t1', {
      type: 'end',
      reason: 'error',
      detail: 'model call failed: overloaded',
      turns: 1,
      usage: { input_tokens: 100, output_tokens: 20, cache_read_tokens: 30, cache_creation_tokens: 5, thinking_tokens: 0 },
      cost_usd: 0.01,
    });
    let task = (await readRunBoard(redis, keys, 'r2'))!.tasks[0]!;
    expect(task).toMatchObject({ status: 'failed', error: 'model call failed: overloaded', activity: 'model call failed: overloaded' });

    await run.state('t1', 'queued', 2, 'retry after a model error');
    const queuedAt = run.now;
    await run.starts('t1', {
      usage: { input_tokens: 1, output_tokens: 2, cache_read_tokens: 3, cache_creation_tokens: 4, thinking_tokens: 0 },
      cost: 0.5,
    });
    const board = (await readRunBoard(redis, keys, 'r2'))!;
    task = board.tasks[0]!;
    expect(task).toMatchObject({
      status: 'running',
      attempt: 2,
      queued_at: queuedAt,
      started_at: queuedAt + 1_000,
      status_detail: 'retry after a model error',
    });
    expect(task.error).toBeUndefined();
    expect(task.ended_at).toBeUndefined();
    expect(task.usage).toEqual({
      input_tokens: 101,
      output_tokens: 22,
      cache_read_tokens: 33,
      cache_creation_tokens: 9,
      thinking_tokens: 0,
    });
    expect(task.cost_usd).toBeCloseTo(0.51);
    expect(board.run.usage).toEqual(task.usage);
  });

  it('shows an orca agent run, which has only its agent’s events, and an abort that was asked for', async () => {
    const { redis, keys } = testRedis();
    const run = new RunEvents(redis, keys, 'r3');
    await run.starts('explore');
    let board = (await readRunBoard(redis, keys, 'r3'))!;
    expect(board.run).toMatchObject({ kind: 'agent', state: 'running', abort_requested: false });
    expect(board.tasks.map((task) => [task.task_id, task.status])).toEqual([['explore', 'running']]);

    await publishAbort(redis, keys, 'r3', 'test');
    await run.agent('explore', {
      type: 'end',
      reason: 'aborted',
      detail: 'the run was aborted',
      turns: 1,
      usage: { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_creation_tokens: 0, thinking_tokens: 0 },
      cost_usd: 0,
    });
    board = (await readRunBoard(redis, keys, 'r3'))!;
    expect(board.run).toMatchObject({ state: 'aborted', abort_requested: true });
    expect(board.tasks[0]!.error).toBeUndefined();
  });

  it('shows a task blocked before its first attempt, with why', async () => {
    const { redis, keys } = testRedis();
    const run = new RunEvents(redis, keys, 'r-blocked');
    await run.created();
    await run.task('t1');
    await run.task('t2', ['t1']);
    await run.state('t1', 'aborted', 1, 'aborted: orca abort');
    await run.state('t2', 'blocked', 0, 'blocked: t1 aborted');
    const [t1, t2] = (await readRunBoard(redis, keys, 'r-blocked'))!.tasks;
    expect(t1).toMatchObject({ status: 'aborted', attempt: 1, activity: 'aborted: orca abort' });
    expect(t1!.error).toBeUndefined();
    expect(t2).toMatchObject({ status: 'blocked', attempt: 0, error: 'blocked: t1 aborted', activity: 'blocked: t1 aborted' });
  });

  it('refuses a malformed event before writing anything, naming the field', async () => {
    const { redis, keys } = testRedis();
    const bad = {
      run_id: 'r4',
      source: 'run' as const,
      event: { type: 'task_created', at: 1, task_id: 't1', role: 'worker', title: 't', depends_on: 't0', paths: [], checks: [] },
    };
    await expect(appendRunEvent(redis, keys, bad)).rejects.toThrow(/depends_on: .*expected array/);
    expect(await redis.exists(keys.events('r4'), keys.run('r4'), keys.runs(), keys.task('r4', 't1'))).toBe(0);
  });

  it('keeps an event of a type it does not know on the stream, and marks the run as alive', async () => {
    const { redis, keys } = testRedis();
    await appendRunEvent(redis, keys, {
      run_id: 'r5',
      task_id: 't1',
      source: 'agent',
      event: { type: 'future_thing', at: 5, detail: 'x' },
    });
    expect(await readRunEvents(redis, keys, 'r5')).toHaveLength(1);
    const board = (await readRunBoard(redis, keys, 'r5'))!;
    expect(board.run.updated_at).toBe(5);
    expect(board.tasks.map((task) => task.task_id)).toEqual(['t1']);
  });

  it('lists runs newest first, and the same stream replayed elsewhere gives the same board', async () => {
    const { redis, keys, prefix } = testRedis();
    const older = new RunEvents(redis, keys, 'r-old', Date.UTC(2026, 0, 1));
    await older.created();
    const newer = new RunEvents(redis, keys, 'r-new', Date.UTC(2026, 0, 2));
    await newer.created();
    await newer.task('t1');
    await newer.state('t1', 'queued');
    await newer.starts('t1');
    await newer.finishes('t1');
    await newer.merged('t1');
    expect(await latestRunId(redis, keys)).toBe('r-new');
    expect((await listRuns(redis, keys)).map((run) => [run.run_id, run.task_count])).toEqual([
      ['r-new', 1],
      ['r-old', 0],
    ]);

    // The projection reads nothing back: the stream alone determines the board.
    const replica = new Keys(`${prefix}-replica`);
    for (const { entry } of await readRunEvents(redis, keys, 'r-new')) await appendRunEvent(redis, replica, entry);
    try {
      expect(await readRunBoard(redis, replica, 'r-new')).toEqual(await readRunBoard(redis, keys, 'r-new'));
    } finally {
      const left = await redis.keys(`${replica.prefix}:*`);
      if (left.length > 0) await redis.del(...left);
    }
  });
});
