import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../shared/core/runtime/compiledEntry.js';
import { readRunBoard } from '../../shared/infra/board/readBoard.js';
import { publishAbort } from '../../shared/infra/queue/runAbort.js';
import { makeRepo } from '../support/gitRepo.js';
import { OrcaTestEnv } from '../support/orcaEnv.js';
import { httpRequest } from './httpRequest.js';
import { startOrca, startServe } from './orcaProcesses.js';
import { waitFor } from './waitFor.js';

/** Whole scripted runs on a shared, possibly busy machine: a safety net, not a measure of speed. */
const WHOLE_RUN_MS = 240_000;

const STALLS = path.join(packageRoot(), 'tests', 'board', 'fixtures', 'stalls-in-t1.json');

describe('the board outlives the coordinator', () => {
  it(
    'kills the coordinator mid-run; new processes, and orca resume, find the same board in Redis',
    async () => {
      const env = await OrcaTestEnv.open();
      await env.startWorker({ concurrency: 2 });
      const repo = makeRepo({ 'README.md': '# stalls\n' });
      // Workers of their own, as on another host: killing the coordinator leaves them running.
      const coordinator = startOrca(env, ['run', 'a run that stalls', '--repo', repo, '--script', STALLS, '--no-local-workers']);
      const [, runId] = await coordinator.printed(/^orca: run (\S+)$/m);
      await waitFor(
        async () => {
          const task = (await readRunBoard(env.redis, env.keys, runId!))?.tasks.find((candidate) => candidate.task_id === 't1');
          return task?.status === 'running' && task.turns === 1;
        },
        () => coordinator.output,
      );

      const before = await env.cli(['status', runId!, '--json']);
      expect(before.code, before.stderr).toBe(0);
      const board = JSON.parse(before.stdout);
      expect(board.run).toMatchObject({ run_id: runId, kind: 'run', state: 'running', phase: 'dispatching' });
      expect(board.tasks.map((task: { task_id: string; status: string }) => [task.task_id, task.status])).toEqual([
        ['_coordinator', 'completed'],
        ['_plan', 'completed'],
        ['t1', 'running'],
        ['t2', 'pending'],
      ]);
      const streamLength = await env.redis.xlen(env.keys.events(runId!));

      await coordinator.stop('SIGKILL');

      // Nothing the coordinator held in memory was the board: a new `orca status` and a new
      // `orca serve` show exactly what was there, and nothing was written since.
      const after = await env.cli(['status', runId!, '--json']);
      expect(after.code, after.stderr).toBe(0);
      expect(JSON.parse(after.stdout)).toEqual(board);
      const { url } = await startServe(env);
      expect(JSON.parse((await httpRequest(`${url}api/runs/${runId}`)).body)).toEqual(board);
      const text = await env.cli(['status', runId!]);
      expect(text.stdout).toMatch(/running\s+t1\s+worker/);
      expect(await env.redis.xlen(env.keys.events(runId!))).toBe(streamLength);

      // orca resume carries on from the same board: what was done stays done, t1's job is adopted
      // (still attempt 1, started when it started), nothing is redone.
      const resumed = startOrca(env, ['resume', runId!, '--no-local-workers']);
      await resumed.printed(/resuming run /);
      await waitFor(
        async () => (await env.redis.xlen(env.keys.events(runId!))) > streamLength,
        () => resumed.output,
      );
      const during = JSON.parse(JSON.stringify(await readRunBoard(env.redis, env.keys, runId!)));
      expect(during.tasks.slice(0, 3)).toEqual(board.tasks.slice(0, 3));

      // The worker's agent is still in its model call: the abort ends it, and the board says so.
      await publishAbort(env.redis, env.keys, runId!, 'test over');
      await expect(resumed.exited).resolves.toBe(130);
      const end = (await readRunBoard(env.redis, env.keys, runId!))!;
      expect(end.run.state).toBe('ABORTED');
      expect(end.tasks.map((task) => [task.task_id, task.status, task.attempt])).toEqual([
        ['_coordinator', 'completed', 1],
        ['_plan', 'completed', 1],
        ['t1', 'aborted', 1],
        ['t2', expect.stringMatching(/^(blocked|cancelled)$/), 0],
      ]);
    },
    WHOLE_RUN_MS,
  );
});
