import { describe, expect, it } from 'vitest';
import { boardText, duration, tokens } from '../../coordinator/board/boardText.js';
import { withResultState } from '../../coordinator/board/runResultState.js';
import { readRunBoard } from '../../shared/infra/board/readBoard.js';
import { git, makeRepo } from '../support/gitRepo.js';
import { testRedis } from '../support/redis.js';
import { RunEvents } from './runEvents.js';

describe('the board as text', () => {
  it('has a row per task with its status, role, host, elapsed time, tokens, cost and what it does now, and the verdict', async () => {
    const { redis, keys } = testRedis();
    const run = new RunEvents(redis, keys, 'r-text');
    await run.created('/repos/shop');
    await run.task('t1');
    await run.task('t2', ['t1']);
    await run.state('t1', 'queued');
    await run.starts('t1', { host: 'build-7' });
    const startedAt = run.now - 4_000;
    const board = (await readRunBoard(redis, keys, 'r-text'))!;

    const lines = boardText(board, { now: startedAt + 75_000, color: false });
    expect(lines[0]).toBe('run r-text · running · Scripted model (no LLM) · 1m19s');
    expect(lines).toContain('task: add a discount to the cart');
    const header = lines.findIndex((line) => line.startsWith('STATUS'));
    expect(lines[header]!.split(/\s{2,}/)).toEqual(['STATUS', 'TASK', 'ROLE', 'HOST', 'ELAPSED', 'TOKENS', 'COST', 'NOW']);
    expect(lines[header + 1]!.split(/\s{2,}/)).toEqual([
      'running',
      't1',
      'worker',
      'build-7',
      '1m15s',
      '135/20',
      '$0.0100',
      'Bash npm test -- cart',
    ]);
    expect(lines[header + 2]!.split(/\s{2,}/)).toEqual(['pending', 't2', 'worker', '–', '–', '–', '–', 'waits for t1']);

    // A pending permission request: what it asks, and how to answer it from here.
    await run.agent('t1', {
      type: 'permission_request',
      id: 'feed0001',
      role: 'worker',
      tool: 'Bash',
      input: { command: 'npm publish' },
      summary: 'npm publish',
      reason: 'the rule Bash(npm publish:*) in .claude/settings.json asks before `npm publish`',
      by: 'ask:Bash(npm publish:*) in .claude/settings.json',
      cwd: '/tmp/wt/t1',
      suggestion: ['Bash(npm publish:*)'],
      expires_at: run.now + 600_000,
    });
    const asking = boardText((await readRunBoard(redis, keys, 'r-text'))!, { now: run.now + 30_000, color: false });
    expect(asking.slice(-3)).toEqual([
      '1 permission request(s) wait for an answer:',
      '? t1 asks to run Bash: npm publish (request feed0001, waiting 30s)',
      '  the rule Bash(npm publish:*) in .claude/settings.json asks before `npm publish`; orca allow r-text feed0001 / orca deny r-text feed0001',
    ]);

    await run.finishes('t1');
    await run.merged('t1');
    await run.run({ type: 'verdict', status: 'PARTIAL', detail: '1 of 2 tasks merged' });
    const after = boardText((await readRunBoard(redis, keys, 'r-text'))!, { now: Date.now(), color: false });
    const row = after.find((line) => line.includes(' t1 '))!;
    // A finished task's elapsed time is fixed at its end, not at the clock (its request took a second of it).
    expect(row.split(/\s{2,}/).slice(0, 5)).toEqual(['merged', 't1', 'worker', 'host-1', '8s']);
    // Its agent ended: its request waits no more.
    expect(after.join('\n')).not.toContain('feed0001');
    expect(after.at(-1)).toBe('verdict PARTIAL: 1 of 2 tasks merged');
  });

  it('says merged only of a task that changed something, and no phase once the run ended', async () => {
    const { redis, keys } = testRedis();
    const run = new RunEvents(redis, keys, 'r-words');
    await run.created('/repos/shop');
    await run.task('t1');
    await run.task('t2');
    await run.run({ type: 'run_phase', phase: 'verifying', detail: 'checks' });
    await run.finishes('t1');
    await run.merged('t1');
    await run.finishes('t2');
    await run.run({ type: 'merge', task_id: 't2', outcome: 'nothing', files: [], detail: 'the task changed no files' });
    await run.state('t2', 'merged');
    const usage = { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_creation_tokens: 0, thinking_tokens: 0 };
    await run.run({ type: 'run_end', status: 'ABORTED', usage, cost_usd: 0, detail: 'orca abort' });

    const board = (await readRunBoard(redis, keys, 'r-words'))!;
    expect({ phase: board.run.phase, phase_detail: board.run.phase_detail, state: board.run.state }).toEqual({
      phase: 'done',
      phase_detail: undefined,
      state: 'ABORTED',
    });
    const lines = boardText(board, { now: Date.now(), color: false });
    expect(lines.find((line) => line.includes(' t1 '))!.split(/\s{2,}/)[0]).toBe('merged');
    expect(lines.find((line) => line.includes(' t2 '))!.split(/\s{2,}/)[0]).toBe('unchanged');
  });

  it('colours statuses for a terminal and cuts lines to its width without breaking a colour code', async () => {
    const { redis, keys } = testRedis();
    const run = new RunEvents(redis, keys, 'r-width');
    await run.created();
    await run.task('a-task-with-a-long-name');
    await run.state('a-task-with-a-long-name', 'failed', 1, 'the job could not start: '.repeat(10));
    const board = (await readRunBoard(redis, keys, 'r-width'))!;
    const lines = boardText(board, { now: run.now, color: true, width: 40 });
    const visible = (line: string) => line.replace(/\x1b\[[0-9;]*m/g, '');
    expect(lines.every((line) => visible(line).length <= 40)).toBe(true);
    const row = lines.find((line) => visible(line).startsWith('failed'))!;
    expect(row.startsWith('\x1b[31mfailed')).toBe(true);
    expect(row).toContain('\x1b[0m');
  });

  it('says, once a run ended, where its result stands in git: not merged yet, merged, removed', async () => {
    const { redis, keys } = testRedis();
    const repo = makeRepo();
    const base = git(repo, 'rev-parse', 'HEAD');
    const run = new RunEvents(redis, keys, 'r-result');
    const branch = 'orca/r-result/integration';
    await run.created(repo, base);
    git(repo, 'branch', branch, base);
    git(repo, 'switch', '--quiet', branch);
    git(repo, 'commit', '--quiet', '--allow-empty', '-m', 'merged work');
    const head = git(repo, 'rev-parse', 'HEAD');
    git(repo, 'switch', '--quiet', 'main');
    const text = async () =>
      boardText(await withResultState((await readRunBoard(redis, keys, 'r-result'))!), { now: run.now, color: false });
    // Nothing said while the run goes.
    expect((await text()).some((line) => line.startsWith('result'))).toBe(false);
    const usage = { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_creation_tokens: 0, thinking_tokens: 0 };
    await run.run({ type: 'run_end', status: 'PASS', head, usage, cost_usd: 0, detail: 'done' });
    expect((await text()).at(-1)).toBe(`result ${branch} at ${head.slice(0, 12)}: not merged yet (git merge ${branch})`);
    git(repo, 'merge', '--quiet', '--ff-only', branch);
    expect((await text()).at(-1)).toBe(`result ${branch} at ${head.slice(0, 12)}: merged into main`);
    git(repo, 'branch', '-D', branch);
    expect((await text()).at(-1)).toBe(`result ${branch}: removed from the repository`);
  });

  it('writes durations and token counts short', () => {
    expect([duration(999), duration(59_000), duration(61_000), duration(3_725_000)]).toEqual(['0s', '59s', '1m01s', '1h02m']);
    expect([tokens(950), tokens(1_234), tokens(12_345), tokens(4_100_000)]).toEqual(['950', '1.2k', '12k', '4.1M']);
  });
});
