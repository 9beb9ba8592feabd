import { describe, expect, it } from 'vitest';
import { readRunBoard } from '../../shared/infra/board/readBoard.js';
import { COORDINATOR_FIELDS } from '../../shared/infra/board/runChange.js';
import { appendRunEvent, readRunEvents } from '../../shared/infra/board/runEvents.js';
import { emptyRunFold, foldRunEntry, type RunFold } from '../../shared/infra/board/runFold.js';
import { testRedis } from '../support/redis.js';
import { RunEvents } from './runEvents.js';

async function foldOf(run: RunEvents, only?: 'run'): Promise<RunFold> {
  const state = emptyRunFold(run.runId);
  for (const { entry } of await readRunEvents(run.redis, run.keys, run.runId))
    if (!only || entry.source === only) foldRunEntry(state, entry);
  return state;
}

/** A record without what only the coordinator keeps: what the board's hash should hold. */
function boardPart(record: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([field]) => !COORDINATOR_FIELDS.has(field)));
}

describe('one reducer for a run’s events', () => {
  it('folds a stream in memory into what the board projects into Redis from it', async () => {
    const { redis, keys } = testRedis();
    const run = new RunEvents(redis, keys, 'r-fold');
    await run.created('/repos/shop');
    await run.run({ type: 'run_phase', phase: 'dispatching', detail: 'two tasks' });
    await run.run({
      type: 'findings',
      facts: [
        { fact: 'cart.ts has `total`', evidence: 'src/cart.ts:3', verified: true },
        { fact: '`load()` reads it', evidence: 'src/gone.ts:1', verified: false, reason: 'src/gone.ts does not exist at the base commit' },
      ],
      files: [{ path: 'src/cart.ts', hash: 'c'.repeat(64), partial: true, seen: [[1, 20]], verified: true }],
      questions: [],
    });
    await run.run({ type: 'plan', subtasks: [], risks: ['the cart has no tests'] });
    await run.run({ type: 'approval', approved: true, by: 'tester' });
    await run.task('t1');
    await run.task('t2', ['t1']);
    await run.run({ type: 'dag_note', message: 't2 waits for t1', task_id: 't2' });
    await run.state('t1', 'queued', 1);
    await run.starts('t1');
    await run.agent('t1', {
      type: 'end',
      reason: 'error',
      detail: 'model call failed',
      turns: 1,
      usage: { input_tokens: 1, output_tokens: 1, cache_read_tokens: 0, cache_creation_tokens: 0, thinking_tokens: 0 },
      cost_usd: 0,
    });
    await run.state('t1', 'queued', 2, 'retry');
    await run.starts('t1', {
      usage: { input_tokens: 1, output_tokens: 2, cache_read_tokens: 3, cache_creation_tokens: 4, thinking_tokens: 0 },
      cost: 0.5,
    });
    await run.agent('t1', { type: 'assistant_text', turn: 1, text: 'done here\nand more' });
    await run.finishes('t1');
    await run.merged('t1');
    await run.state('t2', 'blocked', 0, 'blocked: for the test');
    await run.run({
      type: 'check',
      command: 'npm test',
      exit_code: 0,
      tests_executed: 3,
      tree: 'd'.repeat(40),
      log: '/tmp/1.log',
      task_id: 't1',
    });
    await run.run({ type: 'gate', name: 'zero_tests', ok: true, reason: '3 tests ran' });
    await run.run({
      type: 'problems',
      round: 1,
      problems: [
        { file: 'src/gone.ts', what: 'deleted but imported', verified: false, reason: 'src/gone.ts does not exist in the merged tree' },
      ],
    });
    await run.run({ type: 'verdict', status: 'PARTIAL', detail: 't2 blocked' });
    const usage = { input_tokens: 100, output_tokens: 20, cache_read_tokens: 30, cache_creation_tokens: 5, thinking_tokens: 0 };
    await run.run({ type: 'run_end', status: 'PARTIAL', head: 'e'.repeat(40), usage, cost_usd: 0.01, detail: 'd' });
    // An `orca agent`-style task, with only its agent's events.
    await run.starts('solo');
    // A task known only from an event type this version does not know: the board reads its defaults.
    await appendRunEvent(redis, keys, {
      run_id: 'r-fold',
      task_id: 'ghost',
      source: 'agent',
      event: { type: 'future_thing', at: run.now + 1 },
    });

    const board = (await readRunBoard(redis, keys, 'r-fold'))!;
    const fold = await foldOf(run);
    const { state: _state, abort_requested: _abort, ...boardRun } = board.run;
    expect(boardPart(fold.run)).toEqual(boardRun);
    expect([...fold.tasks.keys()]).toEqual(board.tasks.map((task) => task.task_id));
    for (const task of board.tasks) {
      const { activity: _activity, ...boardTask } = task;
      const { cost_usd: cost, ...folded } = boardPart(fold.tasks.get(task.task_id)!);
      const { cost_usd: boardCost, ...rest } = boardTask;
      // Redis sums costs in its own floating point.
      expect(cost as number).toBeCloseTo(boardCost);
      expect(folded).toEqual(rest);
    }
    expect(fold.evidence).toEqual(board.evidence);
    expect(fold.notes).toEqual(board.notes);
    // The checked findings, files read and problems are on the board (the hashes stay the coordinator's).
    expect(board.run.facts.map((fact) => [fact.evidence, fact.verified, fact.reason])).toEqual([
      ['src/cart.ts:3', true, undefined],
      ['src/gone.ts:1', false, 'src/gone.ts does not exist at the base commit'],
    ]);
    expect(board.run.files_read).toEqual([{ path: 'src/cart.ts', partial: true, verified: true }]);
    expect(board.run.problems).toMatchObject([{ file: 'src/gone.ts', verified: false }]);
  });

  it('keeps what the coordinator needs from its own events: settings, plan, job ids, results’ spend, the last merge', async () => {
    const { redis, keys } = testRedis();
    const run = new RunEvents(redis, keys, 'r-coord');
    await run.created();
    await run.task('t1');
    await run.state('t1', 'queued', 1);
    await run.starts('t1');
    await run.finishes('t1');
    await run.state('t1', 'queued', 2);
    await run.finishes('t1', 'f'.repeat(40));
    await run.run({ type: 'merge', task_id: 't1', outcome: 'conflict', files: ['src/t1.ts'], detail: 'both changed it' });
    const beforeMerge = await foldOf(run, 'run');
    expect(beforeMerge.run.last_merge_at).toBe(0);
    await run.run({ type: 'merge', task_id: 't1', outcome: 'resolved', commit: 'd'.repeat(40), files: ['src/t1.ts'] });
    const mergedAt = run.now;

    const state = await foldOf(run, 'run');
    const t1 = state.tasks.get('t1')!;
    // The merge is what makes a task merged, before (or without) the task_state that says so.
    expect(t1).toMatchObject({ status: 'merged', attempt: 2, job_id: 'r-coord|t1|2', merge_outcome: 'resolved', commit: 'f'.repeat(40) });
    expect(t1.result_job_id).toBeUndefined(); // finishes() records a result without a job id
    const twice = { input_tokens: 200, output_tokens: 40, cache_read_tokens: 60, cache_creation_tokens: 10, thinking_tokens: 0 };
    expect(t1.result_usage).toEqual(twice);
    expect(t1.result_cost_usd).toBeCloseTo(0.02);
    expect(state.run.result_usage).toEqual(twice);
    expect(state.run.last_merge_at).toBe(mergedAt);
    expect(state.run).toMatchObject({ kind: 'run', status: 'running', base: 'a'.repeat(40), checks: ['npm test'] });
    // Fed only its own events, the coordinator's state has none of the agents' turns.
    expect(t1.usage).toEqual({ input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_creation_tokens: 0, thinking_tokens: 0 });
    expect(t1.tool_calls).toBe(0);
  });

  it('shows an agent the model refused as failed with end reason refusal, and counts its thinking tokens', async () => {
    const { redis, keys } = testRedis();
    const run = new RunEvents(redis, keys, 'r-refusal');
    await run.starts('solo');
    const usage = { input_tokens: 10, output_tokens: 50, cache_read_tokens: 0, cache_creation_tokens: 0, thinking_tokens: 30 };
    await run.agent('solo', { type: 'usage', turn: 1, usage, cost_usd: 0.001, total: usage, total_cost_usd: 0.001 });
    const detail = 'the model declined to go on (stop reason refusal: category cyber)';
    await run.agent('solo', { type: 'end', reason: 'refusal', detail, turns: 1, usage, cost_usd: 0.001 });

    const board = (await readRunBoard(redis, keys, 'r-refusal'))!;
    const task = board.tasks.find((candidate) => candidate.task_id === 'solo')!;
    expect(task).toMatchObject({ status: 'failed', end_reason: 'refusal', end_detail: detail, error: detail });
    expect(task.usage.thinking_tokens).toBe(30);
    expect(board.run.usage.thinking_tokens).toBe(30);
    expect((await foldOf(run)).tasks.get('solo')).toMatchObject({ status: 'failed', end_reason: 'refusal' });
  });

  it('shows a worktree setup command as the task’s evidence, and a failed one as its error', async () => {
    const { redis, keys } = testRedis();
    const run = new RunEvents(redis, keys, 'r-setup');
    await run.starts('t1');
    const common = { log: '/home/orca/sessions/r-setup/t1.1/setup.log', tree: 'a'.repeat(40) };
    await run.agent('t1', { type: 'setup', command: 'node scripts/gen.mjs', outcome: 'ok', exit_code: 0, duration_ms: 120, ...common });
    await run.agent('t1', {
      type: 'setup',
      command: 'make db',
      outcome: 'failed',
      exit_code: 2,
      duration_ms: 40,
      tail: 'make: *** no rule for db',
      ...common,
    });
    const board = (await readRunBoard(redis, keys, 'r-setup'))!;
    const task = board.tasks.find((candidate) => candidate.task_id === 't1')!;
    expect(
      task.evidence.map((evidence) => (evidence.kind === 'check' ? [evidence.command, evidence.exit_code, evidence.log] : [])),
    ).toEqual([
      ['setup: node scripts/gen.mjs', 0, common.log],
      ['setup: make db', 2, common.log],
    ]);
    expect(task.error).toBe('setup `make db` failed: make: *** no rule for db');
    expect((await foldOf(run)).tasks.get('t1')?.evidence).toEqual(task.evidence);
  });
});
