import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHECK_COMMAND, makeRunRepo } from '../../bench/runScript.js';
import { git } from '../support/gitRepo.js';
import { OrcaTestEnv } from '../support/orcaEnv.js';
import { checkedWriter, is, OrcaProcess, type RunJson, runEvents, waitForEntry, waitForGate, writeRunScript } from './faultRun.js';

/**
 * The coordinator killed with SIGKILL while one task runs and two are already merged. The worker
 * process is the test's own, so the running job lives on; `orca resume` rebuilds the run from its
 * Redis events, adopts that job and finishes the run.
 */
describe('a coordinator killed mid-run', () => {
  it('is carried on by orca resume from Redis and git: finished tasks are not redone, their commits unchanged', async () => {
    const env = await OrcaTestEnv.open();
    const repo = path.join(env.dir('repo'), 'project');
    const base = makeRunRepo(repo);
    const gate = path.join(repo, '.git', 'orca-test-gate');
    const script = writeRunScript(env.dir('script'), [
      { id: 'one', paths: ['src/one.txt'], turns: checkedWriter('src/one.txt') },
      { id: 'two', paths: ['src/two.txt'], turns: checkedWriter('src/two.txt') },
      { id: 'slow', paths: ['src/slow.txt'], turns: checkedWriter('src/slow.txt', [waitForGate(gate)]) },
    ]);
    await env.startWorker({ concurrency: 3 });

    const run = new OrcaProcess(env, [
      'run',
      'three files',
      '--repo',
      repo,
      '--script',
      script,
      '--check',
      CHECK_COMMAND,
      '--json',
      '--no-local-workers',
    ]);
    const runId = await run.runId;
    await waitForEntry(env.redis, env.keys, runId, is.taskState('one', 'merged'), 'task one merging');
    await waitForEntry(env.redis, env.keys, runId, is.taskState('two', 'merged'), 'task two merging');
    await waitForEntry(env.redis, env.keys, runId, is.toolCall('slow', 'Bash'), 'task slow reaching its shell');
    run.child.kill('SIGKILL');
    expect((await run.exited).signal).toBe('SIGKILL');

    const before = await runEvents(env.redis, env.keys, runId);
    const mergedBefore = new Map(
      before
        .filter((e) => e.source === 'run' && e.event.type === 'task_result')
        .map((e) => [String(e.event.task_id), String(e.event.commit)] as const),
    );
    const integrationBefore = git(repo, 'rev-parse', `orca/${runId}/integration`);
    // No --ask-timeout was given: none is recorded, so the resume decides by its own terminal.
    const created = before.find((e) => e.source === 'run' && e.event.type === 'run_created');
    expect(created?.event).toMatchObject({ settings: expect.not.objectContaining({ ask_timeout_ms: expect.anything() }) });

    const resume = new OrcaProcess(env, ['resume', runId, '--json', '--no-local-workers']);
    expect(await resume.runId).toBe(runId);
    // The adopted job finishes only now, while the resumed coordinator waits for it.
    writeFileSync(gate, '');
    const { code, json } = await resume.json();
    expect(code, resume.stderr).toBe(0);
    expect(json.status).toBe('PASS');

    const tasks = Object.fromEntries(json.tasks.map((task) => [task.id, task])) as Record<string, RunJson['tasks'][number]>;
    for (const id of ['one', 'two']) {
      expect(tasks[id]).toMatchObject({ status: 'verified', attempts: 1, commit: mergedBefore.get(id) });
    }
    expect(tasks.slow).toMatchObject({ status: 'verified', attempts: 1 });

    // After the crash nothing was queued again: the resumed coordinator started no job.
    const after = (await runEvents(env.redis, env.keys, runId)).slice(before.length);
    const requeued = after
      .filter((e) => e.source === 'run' && e.event.type === 'task_state' && e.event.status === 'queued')
      .map((e) => e.event.task_id);
    expect(requeued).toEqual(['_verify-1']);
    // The integration branch went on from where it was: one merge more, for the adopted task.
    expect(() => git(repo, 'merge-base', '--is-ancestor', integrationBefore, json.head)).not.toThrow();
    const merges = git(repo, 'log', '--merges', '--format=%s', `${base}..${json.head}`).split('\n').filter(Boolean);
    expect(merges.map((subject) => subject.split(':')[0]).sort()).toEqual(['Merge one', 'Merge slow', 'Merge two']);
    for (const id of ['one', 'two', 'slow']) expect(git(repo, 'rev-list', '--count', `${base}..orca/${runId}/${id}`)).toBe('1');
  });
});
