import { describe, expect, it } from 'vitest';
import type { PermissionRequestEvent } from '../../shared/core/events/permissionAsk.js';
import { answerRequest } from '../../shared/infra/asks/answerRequest.js';
import { rememberedRules } from '../../shared/infra/asks/rememberedRules.js';
import { readRunBoard } from '../../shared/infra/board/readBoard.js';
import { readRunEvents } from '../../shared/infra/board/runEvents.js';
import { emptyRunFold, foldRunEntry } from '../../shared/infra/board/runFold.js';
import { testRedis } from '../support/redis.js';
import { RunEvents } from './runEvents.js';

function request(id: string, summary: string): Omit<PermissionRequestEvent, 'at'> {
  return {
    type: 'permission_request',
    id,
    role: 'worker',
    tool: 'Bash',
    input: { command: summary },
    summary,
    reason: 'the rule Bash(npm publish:*) in .claude/settings.json asks',
    by: 'ask:Bash(npm publish:*) in .claude/settings.json',
    cwd: '/tmp/wt',
    suggestion: ['Bash(npm publish:*)'],
    expires_at: Date.UTC(2026, 0, 1, 13),
  };
}

describe('the board’s permission requests', () => {
  it('keeps every request and the first answer to each; pending are those an agent still waits on', async () => {
    const { redis, keys } = testRedis();
    const run = new RunEvents(redis, keys, 'r-asks');
    await run.created();
    for (const task of ['t1', 't2', 't3']) {
      await run.task(task);
      await run.state(task, 'queued');
      await run.starts(task);
    }
    await run.agent('t1', request('aaaa0001', 'npm publish'));
    await run.agent('t2', request('aaaa0002', 'npm publish --tag two'));
    await run.agent('t3', request('aaaa0003', 'npm publish --tag three'));
    await run.agent('t3', request('aaaa0004', 'npm publish --tag four'));
    // t2's agent ends while it waits (aborted, say): what it asked waits no more.
    await run.agent('t2', {
      type: 'end',
      reason: 'aborted',
      detail: 'aborted: orca abort',
      turns: 1,
      usage: { input_tokens: 1, output_tokens: 1, cache_read_tokens: 0, cache_creation_tokens: 0, thinking_tokens: 0 },
      cost_usd: 0,
    });
    // t3's request 3 is answered twice: the first answer is the one kept.
    const answer = { task_id: 't3', request_id: 'aaaa0003', by: 'alice@host', via: 'command' as const };
    await answerRequest(redis, keys, 'r-asks', { ...answer, allowed: true, reason: 'allowed first', remember: ['Bash(npm publish:*)'] });
    await answerRequest(redis, keys, 'r-asks', { ...answer, allowed: false, reason: 'denied second', by: 'bob@host', via: 'board' });

    const board = (await readRunBoard(redis, keys, 'r-asks'))!;
    expect(board.asks.map((ask) => [ask.id, ask.task_id])).toEqual([
      ['aaaa0001', 't1'],
      ['aaaa0004', 't3'],
    ]);
    expect(board.asks[0]).toMatchObject({ tool: 'Bash', summary: 'npm publish', suggestion: ['Bash(npm publish:*)'], cwd: '/tmp/wt' });
    expect(board.answered).toEqual([
      expect.objectContaining({
        id: 'aaaa0003',
        answer: expect.objectContaining({ allowed: true, reason: 'allowed first', by: 'alice@host' }),
      }),
    ]);
    expect(await rememberedRules(redis, keys, 'r-asks')).toEqual([
      { rules: ['Bash(npm publish:*)'], source: 'allowed for the run by alice@host (command)' },
    ]);

    // A new session of t1 (its worker died and another took the job): the old session's request waits no more.
    await run.agent('t1', { type: 'session_start', session_id: 't1-2', role: 'worker', model: 'scripted', scripted: true, cwd: '/tmp/wt' });
    expect((await readRunBoard(redis, keys, 'r-asks'))!.asks.map((ask) => ask.id)).toEqual(['aaaa0004']);

    // The coordinator's fold, by the same reducer: every request, and the first answer to each.
    const fold = emptyRunFold('r-asks');
    for (const { entry } of await readRunEvents(redis, keys, 'r-asks')) foldRunEntry(fold, entry);
    expect([...fold.asks.keys()].sort()).toEqual(['aaaa0001', 'aaaa0002', 'aaaa0003', 'aaaa0004']);
    expect([...fold.answers.values()]).toEqual([expect.objectContaining({ request_id: 'aaaa0003', reason: 'allowed first' })]);
  });
});
