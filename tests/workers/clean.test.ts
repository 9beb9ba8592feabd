import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { recordRun } from '../../coordinator/runLedger.js';
import { OrcaHome } from '../../shared/core/runtime/orcaHome.js';
import { appendRunEvent } from '../../shared/infra/board/runEvents.js';
import { PortLeaser, parsePortLeaseOwner } from '../../shared/infra/ports/portLease.js';
import { agentJobId } from '../../shared/infra/queue/agentQueue.js';
import { publishAbort } from '../../shared/infra/queue/runAbort.js';
import { commitFiles, git } from '../support/gitRepo.js';
import { OrcaTestEnv, SLOW_TEST_MS } from '../support/orcaEnv.js';
import { waitForProcesses } from '../support/processTable.js';
import { reportTurn, scriptedJob, testRunId, toolTurn } from '../support/scriptedJobs.js';

describe('orca clean', { timeout: SLOW_TEST_MS }, () => {
  it("removes what this installation's finished and dead runs left, saving work first, and never touches a run with a job running", async () => {
    const orca = await OrcaTestEnv.open();
    const repo = orca.dir('repo');
    git(repo, 'init', '-q', '-b', 'main');
    const oldBase = commitFiles(repo, { 'a.txt': 'a\n' }, 'first');
    const head = commitFiles(repo, { 'a.txt': 'b\n' }, 'second');
    await orca.startWorker({ concurrency: 4 });
    const write = (name: string) => [toolTurn('Write', { file_path: `${name}.txt`, content: `${name}\n` }), reportTurn(`wrote ${name}`)];
    const run = {
      agent: testRunId('agent'), // like `orca agent`: no run record, all its jobs finished
      aborted: testRunId('aborted'),
      active: testRunId('active'), // a job still running
      dead: testRunId('dead'), // a coordinator run that never ended
      ended: testRunId('ended'), // a coordinator run that ended
      served: testRunId('served'), // no record here: another ORCA_HOME's run whose job this installation's worker ran
    };
    // What `orca agent` and `orca run` record before their first job (the jobs here are queued by the test itself).
    const home = new OrcaHome(orca.home);
    for (const runId of [run.agent, run.aborted, run.active])
      recordRun(home, { run_id: runId, kind: 'agent', prefix: orca.prefix, repo, base: oldBase, result_branch: `orca/${runId}/w` });
    for (const runId of [run.dead, run.ended])
      recordRun(home, { run_id: runId, kind: 'run', prefix: orca.prefix, repo, base: oldBase, result_branch: `orca/${runId}/integration` });
    // Another installation's branch in the same repository: never this one's to remove.
    const foreign = testRunId('foreign');
    git(repo, 'branch', `orca/${foreign}/w`, oldBase);
    const runEvent = (runId: string, event: Record<string, unknown>) =>
      appendRunEvent(orca.redis, orca.keys, { run_id: runId, source: 'run', event: { at: Date.now(), ...event } as never });
    for (const runId of [run.dead, run.ended]) {
      await runEvent(runId, {
        type: 'run_created',
        task: 't',
        repo,
        base: oldBase,
        integration_branch: `orca/${runId}/integration`,
        model: 'scripted',
        scripted: true,
        checks: [],
      });
    }

    await orca.queue.add(scriptedJob({ runId: run.agent, taskId: 'w', repo: { path: repo }, base: oldBase, turns: write('agent') }));
    await orca.queue.add(
      scriptedJob({
        runId: run.agent,
        taskId: 'look',
        roleName: 'explore',
        repo: { path: repo },
        base: oldBase,
        turns: [{ tools: [{ name: 'Report', input: { findings: [], files: [], questions: [] } }] }],
      }),
    );
    await orca.queue.add(scriptedJob({ runId: run.dead, taskId: 'w', repo: { path: repo }, base: oldBase, turns: write('dead') }));
    await orca.queue.add(scriptedJob({ runId: run.ended, taskId: 'w', repo: { path: repo }, base: oldBase, turns: write('ended') }));
    await orca.queue.add(scriptedJob({ runId: run.served, taskId: 'w', repo: { path: repo }, base: oldBase, turns: write('served') }));
    const spin = `: ${run.aborted}; while true; do sleep 0.05; done`;
    await orca.queue.add(
      scriptedJob({
        runId: run.aborted,
        taskId: 'w',
        repo: { path: repo },
        base: oldBase,
        turns: [toolTurn('Write', { file_path: 'x.txt', content: 'x\n' }), toolTurn('Bash', { command: spin }), reportTurn()],
      }),
    );
    const go = path.join(orca.dir('active'), 'go');
    await orca.queue.add(
      scriptedJob({
        runId: run.active,
        taskId: 'w',
        repo: { path: repo },
        base: head,
        role: { sandbox: false },
        env: { GO: go },
        turns: [
          toolTurn('Write', { file_path: 'active.txt', content: 'active\n' }),
          toolTurn('Bash', { command: `: ${run.active}; while [ ! -e "$GO" ]; do sleep 0.05; done` }),
          reportTurn('went on'),
        ],
      }),
    );
    for (const runId of [run.agent, run.dead, run.ended, run.served])
      expect((await orca.result(agentJobId(runId, 'w', 1))).status).toBe('completed');
    expect((await orca.result(agentJobId(run.agent, 'look', 1))).status).toBe('completed');
    await runEvent(run.ended, {
      type: 'run_end',
      status: 'PASS',
      usage: { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_creation_tokens: 0 },
      cost_usd: 0,
      detail: 'done',
    });
    // Both held in their shells: the active job is running (its session started) before anything is judged.
    await waitForProcesses([run.aborted, run.active]);
    await publishAbort(orca.redis, orca.keys, run.aborted, 'test');
    expect((await orca.result(agentJobId(run.aborted, 'w', 1))).status).toBe('aborted');
    // A lease the agent run's job never gave back (a worker that died holding it).
    const leakedLease = orca.keys.portLease('somehost', 40_001);
    await orca.redis.set(leakedLease, `${run.agent}|w|1`, 'PX', 600_000);

    // The agent run's pool fills in the background (its jobs warmed it and took from it): wait until
    // it is full. Until then a `git worktree add` of its may be half-way, and git commands reading
    // the repository's worktrees (`git branch` below) can fail on the half-written record.
    await poolFull(path.join(orca.home, 'pool', run.agent));
    const worktree = (runId: string) => path.join(orca.home, 'worktrees', runId, 'w');
    const sessions = (runId: string) => path.join(orca.home, 'sessions', runId);
    const branch = (runId: string) => git(repo, 'branch', '--list', `orca/${runId}/w`);
    // A view belongs to its run: `views/<run>/<repoKey>/<commit>`, listed as `<run>/<commit>`.
    const views = () =>
      readdirSync(path.join(orca.home, 'views')).flatMap((runId) =>
        readdirSync(path.join(orca.home, 'views', runId)).flatMap((key) =>
          readdirSync(path.join(orca.home, 'views', runId, key)).map((commit) => `${runId}/${commit}`),
        ),
      );
    const leaser = new PortLeaser(orca.redis, orca.keys);
    const owners = async () => (await leaser.held()).map((lease) => parsePortLeaseOwner(lease.owner).runId);
    for (const runId of Object.values(run)) {
      expect(existsSync(worktree(runId)), runId).toBe(true);
      expect(existsSync(sessions(runId)), runId).toBe(true);
      expect(branch(runId), runId).not.toBe('');
    }
    expect(views()).toEqual([`${run.agent}/${oldBase}`]);
    // Its read-only job warmed the run's pool of ready worktrees: it goes with the run too.
    const pool = path.join(orca.home, 'pool', run.agent);
    expect(existsSync(pool)).toBe(true);
    expect(new Set(await owners())).toEqual(new Set([run.active, run.agent]));

    // A dry run says what would go and removes nothing.
    const dry = await orca.cli(['clean', '--dry-run'], { cwd: repo });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`would remove worktree ${worktree(run.agent)}`);
    expect(dry.stdout).toContain(`would remove ready worktrees ${pool}`);
    for (const runId of Object.values(run)) expect(existsSync(worktree(runId))).toBe(true);
    expect(views()).toEqual([`${run.agent}/${oldBase}`]);

    const first = await orca.cli(['clean'], { cwd: repo });
    expect(first.code, first.stderr).toBe(0);
    for (const runId of [run.agent, run.aborted, run.ended, run.served]) {
      expect(existsSync(worktree(runId)), runId).toBe(false);
      expect(existsSync(sessions(runId)), runId).toBe(false);
      expect(first.stdout).toContain(`removed worktree ${worktree(runId)}`);
    }
    // The aborted agent's uncommitted file was saved before its worktree went.
    const wip = `refs/orca/wip/${run.aborted}/w`;
    expect(first.stdout).toContain(`saved the uncommitted changes of ${worktree(run.aborted)} (1 file(s)) to ${wip}`);
    expect(git(repo, 'show', `${wip}:x.txt`)).toBe('x');
    expect(git(repo, 'rev-parse', `${wip}^`)).toBe(oldBase);
    // A task branch goes; an unmerged result stays; a result with nothing of its own goes.
    expect(first.stdout).toContain(`removed branch orca/${run.ended}/w in ${repo} (a task branch;`);
    expect(first.stdout).toContain(`kept orca/${run.agent}/w in ${repo}`);
    expect(first.stdout).toContain(`removed branch orca/${run.aborted}/w in ${repo} (the result, with no changes (still at the base);`);
    expect(branch(run.ended)).toBe('');
    expect(branch(run.aborted)).toBe('');
    expect(branch(run.agent)).not.toBe('');
    // A run this installation did not make: only what it left under this ORCA_HOME went, its branch stays.
    expect(first.stdout).toContain(
      `run ${run.served}: all 1 job(s) finished; made by another ORCA_HOME, so only what it left under this ORCA_HOME goes`,
    );
    expect(branch(run.served)).not.toBe('');
    expect(first.stdout).toContain(`left run ${foreign} alone: not this installation's`);
    expect(first.stdout).toContain(`removed port lease ${leakedLease} (${run.agent}|w|1)`);
    expect(first.stdout).toContain(`removed views ${path.join(orca.home, 'views', run.agent)}`);
    expect(views()).toEqual([]);
    expect(first.stdout).toContain(`removed ready worktrees ${pool}`);
    expect(existsSync(pool)).toBe(false);
    // Running, or not known to have ended and recent: kept whole.
    expect(first.stdout).toContain(`kept run ${run.active}: 1 job(s) waiting or running`);
    expect(first.stdout).toContain(`kept run ${run.dead}: not known to have ended`);
    for (const runId of [run.active, run.dead]) {
      expect(existsSync(worktree(runId)), runId).toBe(true);
      expect(existsSync(sessions(runId)), runId).toBe(true);
      expect(branch(runId), runId).not.toBe('');
    }
    expect(await owners()).toEqual([run.active, run.active]);
    // The summary counts what was kept: the runs kept whole, and the result a cleaned run kept.
    expect(first.stdout).toMatch(
      /^orca clean: 4 run\(s\) cleaned, 2 run\(s\) kept whole, 1 result\(s\) or saved work of cleaned runs kept \(said above\), 1 of other installations left alone$/m,
    );

    // Past the age threshold the dead run goes; the running one still stays, whatever its age; the other installation's branch too.
    const second = await orca.cli(['clean', '--older-than', '0s'], { cwd: repo });
    expect(second.code, second.stderr).toBe(0);
    expect(existsSync(worktree(run.dead))).toBe(false);
    expect(branch(run.dead)).toBe('');
    expect(second.stdout).toContain(`kept run ${run.active}: 1 job(s) waiting or running`);
    expect(existsSync(path.join(worktree(run.active), 'active.txt'))).toBe(true);
    expect(branch(run.active)).not.toBe('');
    expect(git(repo, 'branch', '--list', `orca/${foreign}/w`)).not.toBe('');

    // Once its job has finished, it goes too; --results takes the results not merged, --wip the saved work.
    writeFileSync(go, '');
    expect((await orca.result(agentJobId(run.active, 'w', 1))).status).toBe('completed');
    const third = await orca.cli(['clean', '--results', '--wip'], { cwd: repo });
    expect(third.code, third.stderr).toBe(0);
    expect(existsSync(worktree(run.active))).toBe(false);
    for (const runId of [run.active, run.agent]) {
      expect(branch(runId)).toBe('');
      expect(third.stdout).toContain(`removed branch orca/${runId}/w in ${repo} (the result, not merged: --results;`);
    }
    expect(git(repo, 'for-each-ref', 'refs/orca/')).toBe('');
    expect(await leaser.held()).toEqual([]);
    expect(readdirSync(path.join(orca.home, 'worktrees'))).toEqual([]);
    expect(readdirSync(path.join(orca.home, 'runs'))).toEqual([]);
    expect(git(repo, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);

    // The user's checkout: untouched throughout.
    expect(git(repo, 'rev-parse', 'HEAD')).toBe(head);
    expect(git(repo, 'status', '--porcelain')).toBe('');
    expect(git(repo, 'branch', '--list', '--format=%(refname:short)').split('\n').sort()).toEqual(
      ['main', `orca/${foreign}/w`, `orca/${run.served}/w`].sort(),
    );
  });
});

/** Waits until every pool under a run's pool folder holds its size in ready worktrees, none of them being filled. */
async function poolFull(runPools: string): Promise<void> {
  const full = () =>
    existsSync(runPools) &&
    readdirSync(runPools).every((key) => {
      const folder = path.join(runPools, key);
      const names = readdirSync(folder);
      if (!names.includes('pool.json')) return false;
      const { size } = JSON.parse(readFileSync(path.join(folder, 'pool.json'), 'utf8')) as { size: number };
      return !names.some((name) => name.endsWith('.busy')) && names.filter((name) => /^w[0-9a-f]{8}$/.test(name)).length >= size;
    });
  while (!full()) await sleep(50);
}
