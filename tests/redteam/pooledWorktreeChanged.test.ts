import { existsSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { WorktreePool } from '../../shared/core/git/worktreePool.js';
import type { ScriptTurn } from '../../shared/core/model/scriptFile.js';
import { OrcaHome } from '../../shared/core/runtime/orcaHome.js';
import { readRunEvents } from '../../shared/infra/board/runEvents.js';
import type { AgentJobResult } from '../../shared/infra/queue/agentJob.js';
import { agentJobId } from '../../shared/infra/queue/agentQueue.js';
import { commitFiles, git } from '../support/gitRepo.js';
import { OrcaTestEnv, SLOW_TEST_MS } from '../support/orcaEnv.js';
import { reportTurn, scriptedJob, testRunId, toolOutcomes, toolTurn } from '../support/scriptedJobs.js';

/** The run's pool in the worker's ORCA_HOME, warmed with one ready worktree, as the coordinator warms it at a run's start. */
type Place = { runId: string; repo: string; base: string };

async function warmPool(env: OrcaTestEnv, place: Place): Promise<string> {
  const coordinator = new WorktreePool(new OrcaHome(env.home), { slots: 1 });
  coordinator.warm(place);
  await coordinator.idle();
  await coordinator.close();
  return readyOne(coordinator.folder(place.runId, place.repo));
}

/** The pool's one ready worktree, once there is one (a worker refills its pool in the background after a take). */
async function readyOne(folder: string): Promise<string> {
  for (let waited = 0; waited < 60_000; waited += 50) {
    const ready = existsSync(folder) ? readdirSync(folder).filter((name) => /^w[0-9a-f]{8}$/.test(name)) : [];
    if (ready.length > 0) return path.join(folder, ready[0]!);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no ready worktree in ${folder} after a minute`);
}

/** A job of the run on `place.repo`, queued for the env's worker; its result. */
async function runJob(env: OrcaTestEnv, place: Place, taskId: string, turns: ScriptTurn[]): Promise<AgentJobResult> {
  const { runId, repo, base } = place;
  await env.queue.add(scriptedJob({ runId, taskId, repo: { path: repo }, base, turns }));
  return env.result(agentJobId(runId, taskId, 1));
}

/** The run's pool once the worker refilled it after its take. */
function refilled(env: OrcaTestEnv, { runId, repo }: Place): Promise<string> {
  return readyOne(new WorktreePool(new OrcaHome(env.home), { slots: 1 }).folder(runId, repo));
}

const WRITE_THEN_REPORT = [toolTurn('Write', { file_path: 'written.txt', content: 'x\n' }), reportTurn()];

// The take's check of a pooled worktree's tracked files runs beside the job's start (the agent's
// first model request does not wait for it): what it finds must still stop every call.
describe('a pooled worktree changed in place while it waited', { timeout: SLOW_TEST_MS }, () => {
  it('fails its job before any call runs there, saves nothing of it as the task’s work, and leaves no branch', async () => {
    const env = await OrcaTestEnv.open();
    const repo = realpathSync(env.dir('repo'));
    git(repo, 'init', '-q', '-b', 'main');
    const base = commitFiles(repo, { 'a.txt': 'one\n', 'src/b.txt': 'b\n' }, 'initial');
    await env.startWorker({ concurrency: 1 });
    const runId = testRunId('pooltamper');
    const place = { runId, repo, base };

    // Written in place, as a process outside orca could: no folder of the tree gains an entry, so
    // only the check of the tracked files' bytes can see it.
    const pooled = await warmPool(env, place);
    writeFileSync(path.join(pooled, 'src', 'b.txt'), 'planted\n');
    const failed = await runJob(env, place, 't1', WRITE_THEN_REPORT);
    expect(failed).toMatchObject({ status: 'failed', end_reason: 'pooled_worktree_changed' });
    expect(failed.detail).toMatch(/changed while it waited there.*src\/b\.txt/);
    // The call was asked for and never ran: no result of it, and nothing it wrote anywhere.
    const calls = await toolOutcomes(env.redis, env.keys, runId, 't1');
    expect(calls.filter((call) => call.name === 'Write' && !call.isError)).toEqual([]);
    const worktree = new OrcaHome(env.home).worktree(runId, 't1');
    expect(existsSync(worktree)).toBe(false);
    expect(existsSync(path.join(repo, 'written.txt'))).toBe(false);
    // Not the task's work: no work-in-progress ref holds the planted file, and the branch went with the tree.
    expect(git(repo, 'for-each-ref', '--format=%(refname)', 'refs/orca/')).toBe('');
    expect(git(repo, 'branch', '--list', `orca/${runId}/*`)).toBe('');

    // The same pool, refilled by the worker after its take, clean: the job takes its worktree and works as any other.
    await refilled(env, place);
    const done = await runJob(env, place, 't2', WRITE_THEN_REPORT);
    expect(done, done.detail).toMatchObject({ status: 'completed', files_changed: ['written.txt'] });
    // Both took the pooled worktree (neither was handed a new one instead).
    const workspaces = (await readRunEvents(env.redis, env.keys, runId, '0', 10_000))
      .map(({ entry }) => entry)
      .filter((entry) => entry.event.type === 'workspace');
    expect(workspaces.map((entry) => [entry.task_id, entry.event.pooled])).toEqual([
      ['t1', true],
      ['t2', true],
    ]);
    expect(git(repo, 'show', `${done.commit}:src/b.txt`)).toBe('b');
  });

  it('runs no hook of the session before its check ends: a SessionStart hook never runs on a tree found changed', async () => {
    const env = await OrcaTestEnv.open();
    const repo = realpathSync(env.dir('repo'));
    const marker = path.join(env.dir('hook-out'), 'session-started');
    git(repo, 'init', '-q', '-b', 'main');
    const settings = { hooks: { SessionStart: [{ hooks: [{ type: 'command', command: `touch ${marker}` }] }] } };
    const base = commitFiles(repo, { 'a.txt': 'one\n', '.claude/settings.json': `${JSON.stringify(settings)}\n` }, 'initial');
    await env.startWorker({ concurrency: 1 });
    const runId = testRunId('poolhook');
    const place = { runId, repo, base };
    const pooled = await warmPool(env, place);
    writeFileSync(path.join(pooled, 'a.txt'), 'two\n');
    const failed = await runJob(env, place, 't1', [reportTurn()]);
    expect(failed).toMatchObject({ status: 'failed', end_reason: 'pooled_worktree_changed' });
    expect(existsSync(marker)).toBe(false);

    // The same hook on a clean pooled worktree runs, as any session's does.
    await refilled(env, place);
    const done = await runJob(env, place, 't2', [reportTurn()]);
    expect(done, done.detail).toMatchObject({ status: 'completed' });
    expect(existsSync(marker)).toBe(true);
  });
});
