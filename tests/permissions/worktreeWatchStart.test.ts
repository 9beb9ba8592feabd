import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { WorktreePool } from '../../shared/core/git/worktreePool.js';
import { orcaOwnedPaths } from '../../shared/core/git/worktreeStartState.js';
import { OrcaHome } from '../../shared/core/runtime/orcaHome.js';
import { AgentJobSchema } from '../../shared/infra/queue/agentJob.js';
import { NO_HOOKS } from '../../shared/policy/hooks/hooksConfig.js';
import { OwnedPaths } from '../../shared/policy/permissions/ownedPaths.js';
import { guardedIgnored, guardedWithin, lookAtWorktree } from '../../shared/policy/permissions/worktreeChanges.js';
import { WorktreeWatch } from '../../shared/policy/permissions/worktreeWatch.js';
import type { JobWorkspace } from '../../workers/workspace/jobWorkspace.js';
import { prepareWorkspace } from '../../workers/workspace/prepareWorkspace.js';
import { git, makeRepo, writeFiles } from '../support/gitRepo.js';
import { reportTurn, scriptedJob } from '../support/scriptedJobs.js';
import { tempDir } from '../support/tempDir.js';

/**
 * A pooled worktree's watch starts from the pool's check of the whole tree and does not ask git
 * at all (orca alone wrote since, its start files): it must start where a watch that looks at the
 * whole tree starts, and judge an agent's changes alike. Two jobs take worktrees from the same
 * pool, with the same start files (a guarded `.env` and one in an ignored folder copied by
 * `.worktreeinclude`, `.env.orca`, node_modules linked); one watch is told the tree was checked
 * clean, the other looks at it all; the same agent then changes both the same way.
 */
async function pooledWorkspaces(): Promise<{ repo: string; pool: WorktreePool; made: JobWorkspace[] }> {
  const repo = realpathSync(
    makeRepo({
      'src/a.ts': 'export const a = 1;\n',
      'README.md': '# r\n',
      '.gitignore': '.env\n.env.*\nconfig/local/\nnode_modules/\n*.log\n',
      '.worktreeinclude': '.env\nconfig/local/\n',
    }),
  );
  // The user's own ignored files: copied into each worktree (.worktreeinclude), or linked (node_modules).
  writeFiles(repo, {
    '.env': 'SECRET=user\n',
    'config/local/.env.local': 'LOCAL=1\n',
    'node_modules/dep/index.js': 'x\n',
    'debug.log': 'l\n',
  });
  const home = new OrcaHome(tempDir('orca-watch-start-home-'));
  const pool = new WorktreePool(home, { slots: 2, log: () => undefined });
  const base = git(repo, 'rev-parse', 'HEAD');
  pool.warm({ runId: 'r1', repo, base });
  await pool.idle();
  const hooks = { config: NO_HOOKS, context: () => ({}) as never };
  const made: JobWorkspace[] = [];
  for (const taskId of ['t1', 't2']) {
    const job = AgentJobSchema.parse(scriptedJob({ runId: 'r1', taskId, repo, base, turns: [reportTurn()] }));
    made.push(await prepareWorkspace(job, home, hooks, { pool, ports: [4100] }));
  }
  return { repo, pool, made };
}

/** The same agent's work in a worktree: its start files changed, guarded and unguarded files made, owned and not. */
function agentWrites(dir: string): void {
  writeFiles(dir, {
    '.env': 'SECRET=agent\n',
    'config/local/.env.local': 'LOCAL=agent\n',
    '.env.orca': 'PORT=1\n',
    '.env.extra': 'NEW=1\n',
    'src/b.ts': 'export const b = 1;\n',
    'README.md': '# changed\n',
    'build.log': 'ignored, not guarded\n',
    'node_modules/extra.js': "orca linked the folder: not the agent's change\n",
  });
}

describe('the watch of a pooled worktree, started from the pool check', () => {
  it('starts where a look at the whole tree starts, and judges the agent alike', async () => {
    const { pool, made } = await pooledWorkspaces();
    const [checked, looked] = made as [JobWorkspace, JobWorkspace];
    expect(checked).toMatchObject({ pooled: true, checkedClean: true });
    expect(looked).toMatchObject({ pooled: true, checkedClean: true });
    const envOrca = (dir: string) => path.join(dir, '.env.orca');
    const env = new Map(made.map((workspace) => [workspace.dir, readFileSync(envOrca(workspace.dir), 'utf8')]));

    // orca's start files hold every guarded entry the look at the whole tree finds, and nothing changed.
    const linked = orcaOwnedPaths(checked.dir);
    expect(linked).toEqual(expect.arrayContaining(['node_modules', '.env', 'config/local/.env.local', '.env.orca']));
    const whole = await lookAtWorktree(checked.dir, checked.start, linked, { ignored: true });
    expect(whole.changed).toEqual([]);
    const fromGit = [...guardedIgnored(checked.dir, whole.ignored).keys()];
    expect(fromGit.length).toBeGreaterThan(0);
    expect([...guardedWithin(checked.dir, linked).keys()]).toEqual(expect.arrayContaining(fromGit));

    const open = (workspace: JobWorkspace, cleanAtStart: boolean) =>
      WorktreeWatch.open({
        root: workspace.dir,
        start: workspace.start,
        owned: new OwnedPaths(['src/**']),
        linked: orcaOwnedPaths(workspace.dir),
        cleanAtStart,
      });
    const fromCheck = await open(checked, true);
    const fromLook = await open(looked, false);
    agentWrites(checked.dir);
    agentWrites(looked.dir);
    const [found, expected] = await Promise.all([fromCheck.check(), fromLook.check()]);
    const shape = (findings: typeof found) => ({
      reverted: findings.reverted.map(({ path, kind, reason }) => ({ path, kind, reason })).sort((a, b) => a.path.localeCompare(b.path)),
      toUndo: findings.toUndo.map(({ path, kind }) => ({ path, kind })).sort((a, b) => a.path.localeCompare(b.path)),
    });
    expect(shape(found)).toEqual(shape(expected));
    // The guarded start files are put back as orca left them, not removed as if the commit were their start.
    for (const dir of [checked.dir, looked.dir]) {
      expect(readFileSync(path.join(dir, '.env'), 'utf8')).toBe('SECRET=user\n');
      expect(readFileSync(envOrca(dir), 'utf8')).toBe(env.get(dir));
    }
    expect(found.reverted.map((change) => change.path)).toEqual(expect.arrayContaining(['.env', '.env.orca', '.env.extra']));
    // One orca copied into a folder git ignores whole is put back too: alike both ways.
    for (const dir of [checked.dir, looked.dir]) expect(readFileSync(path.join(dir, 'config/local/.env.local'), 'utf8')).toBe('LOCAL=1\n');
    expect(found.reverted.map((change) => change.path)).toContain('config/local/.env.local');
    expect(found.toUndo.map((change) => change.path)).toEqual(['README.md']);
    await pool.close();
  });

  it('is not told the tree was checked when the pool had to check out another commit after its check', async () => {
    const repo = realpathSync(makeRepo({ 'a.txt': 'one\n' }));
    const home = new OrcaHome(tempDir('orca-watch-start-home-'));
    const pool = new WorktreePool(home, { slots: 1, log: () => undefined });
    const first = git(repo, 'rev-parse', 'HEAD');
    pool.warm({ runId: 'r1', repo, base: first });
    await pool.idle();
    writeFileSync(path.join(repo, 'a.txt'), 'two\n');
    git(repo, 'commit', '-q', '-am', 'second');
    const second = git(repo, 'rev-parse', 'HEAD');
    const moved = await pool.takeChecked({ runId: 'r1', repo, base: second }, home.worktree('r1', 't1'), 'orca/r1/t1');
    expect(moved).toEqual({ start: second, checkedClean: false });
    // Refilled at the newer base: taken there, the check still holds.
    await pool.idle();
    const atBase = await pool.takeChecked({ runId: 'r1', repo, base: second }, home.worktree('r1', 't2'), 'orca/r1/t2');
    expect(atBase).toEqual({ start: second, checkedClean: true });
    await pool.close();
  });
});
