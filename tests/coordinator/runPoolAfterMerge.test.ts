import { readdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type PlanTaskState, RunPool } from '../../coordinator/run/runPool.js';
import { readRunConfig } from '../../coordinator/runConfig.js';
import { readOrcaProjectConfig } from '../../shared/core/git/orcaProjectConfig.js';
import { OrcaHome } from '../../shared/core/runtime/orcaHome.js';
import { commitFiles, git, makeRepo } from '../support/gitRepo.js';
import { tempDir } from '../support/tempDir.js';

/** A run's pool of 2 worktrees filled at the base, then told of a merge while the plan's tasks are as `tasks` say: where its worktrees end. */
async function headsAfterMerge(tasks: PlanTaskState[]): Promise<{ base: string; merged: string; heads: string[] }> {
  const repo = realpathSync(makeRepo({ 'a.txt': 'one\n' }));
  const base = git(repo, 'rev-parse', 'HEAD');
  const home = new OrcaHome(tempDir('orca-run-pool-'));
  const pool = RunPool.open({
    home,
    runId: 'r1',
    repo,
    slots: 2,
    project: await readOrcaProjectConfig(repo, base),
    config: await readRunConfig(repo, base),
    shared: false,
  });
  if (!pool) throw new Error('the repository was not pooled');
  pool.warm(base);
  await pool.idle();
  git(repo, 'switch', '-q', '-c', 'orca/r1/integration');
  const merged = commitFiles(repo, { 'a.txt': 'merged\n' }, 'merged a task');
  pool.afterMerge(merged, tasks);
  await pool.idle();
  const folder = path.join(home.runPools('r1'), readdirSync(home.runPools('r1'))[0]!);
  const heads = readdirSync(folder)
    .filter((name) => /^w[0-9a-f]{8}$/.test(name))
    .map((name) => git(path.join(folder, name), 'rev-parse', 'HEAD'));
  await pool.close();
  return { base, merged, heads };
}

const task = (status: PlanTaskState['status'], depends_on: string[] = []): PlanTaskState => ({ status, depends_on });

describe("a run's pool after a merge", () => {
  it('stays at the base its dispatched jobs start from while no task waits for a merge', async () => {
    const { base, heads } = await headsAfterMerge([task('merged'), task('completed'), task('running', ['a']), task('queued', ['a'])]);
    expect(heads).toEqual([base, base]);
  });

  it('stays there too while the tasks pending have no dependencies: they wait for an agent slot, their base chosen', async () => {
    const { base, heads } = await headsAfterMerge([task('merged'), task('running'), task('pending'), task('pending')]);
    expect(heads).toEqual([base, base]);
  });

  it('moves to the new head while a task waits for its dependencies (it will start there)', async () => {
    const { merged, heads } = await headsAfterMerge([task('merged'), task('running'), task('pending', ['a'])]);
    expect(heads).toEqual([merged, merged]);
  });
});
