import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { removeRunPools } from '../../shared/core/git/poolRemoval.js';
import { WorktreePool } from '../../shared/core/git/worktreePool.js';
import { worktreeGitDir } from '../../shared/core/git/worktreeStartState.js';
import { packageRoot } from '../../shared/core/runtime/compiledEntry.js';
import { OrcaHome } from '../../shared/core/runtime/orcaHome.js';
import { AgentJobSchema } from '../../shared/infra/queue/agentJob.js';
import { NO_HOOKS } from '../../shared/policy/hooks/hooksConfig.js';
import { prepareWorkspace } from '../../workers/workspace/prepareWorkspace.js';
import { commitFiles, git, makeRepo, worktreeFolders } from '../support/gitRepo.js';
import { reportTurn, scriptedJob } from '../support/scriptedJobs.js';
import { tempDir } from '../support/tempDir.js';

const exec = promisify(execFile);

/** A repository, an ORCA_HOME and a pool of `slots` worktrees for run `r1` of it. */
function setUp(slots: number, files: Record<string, string> = { 'a.txt': 'one\n', '.gitignore': '*.log\n' }) {
  const repo = realpathSync(makeRepo(files));
  const home = new OrcaHome(tempDir('orca-pool-home-'));
  const lines: string[] = [];
  const pool = new WorktreePool(home, { slots, log: (line) => lines.push(line) });
  const base = git(repo, 'rev-parse', 'HEAD');
  return { repo, home, pool, lines, base, place: { runId: 'r1', repo, base } };
}

/** The ready worktrees of a pool's folder (what a take may hand out). */
const ready = (folder: string) => (existsSync(folder) ? readdirSync(folder).filter((name) => /^w[0-9a-f]{8}$/.test(name)) : []);
const status = (dir: string) => git(dir, 'status', '--porcelain', '--untracked-files=all', '--ignored');

describe('the pool of ready worktrees', () => {
  it('hands out a worktree only clean and at the job base, on its new branch; a dirtied one is removed instead', async () => {
    const { repo, home, pool, lines, base, place } = setUp(3);
    pool.warm(place);
    await pool.idle();
    const folder = pool.folder('r1', repo);
    const [first, second, third] = ready(folder);
    expect([first, second, third].every(Boolean)).toBe(true);
    for (const name of ready(folder)) {
      expect(git(path.join(folder, name), 'rev-parse', 'HEAD')).toBe(base);
      expect(status(path.join(folder, name))).toBe('');
    }

    // Each dirtied its own way: an untracked file, a changed file, an ignored file.
    writeFileSync(path.join(folder, first!, 'stray.txt'), 'x\n');
    writeFileSync(path.join(folder, second!, 'a.txt'), 'changed\n');
    writeFileSync(path.join(folder, third!, 'build.log'), 'ignored\n');
    const dir = home.worktree('r1', 't1');
    expect(await pool.take(place, dir, 'orca/r1/t1')).toBeUndefined();
    expect(existsSync(dir)).toBe(false);
    expect(ready(folder)).toEqual([]);
    expect(lines.filter((line) => line.includes('was not clean, removed'))).toHaveLength(3);
    expect(worktreeFolders(repo).filter((dir) => dir.includes(`${path.sep}pool${path.sep}`))).toEqual([]);

    pool.warm(place);
    await pool.idle();
    expect(await pool.take(place, dir, 'orca/r1/t1')).toBe(base);
    expect(git(dir, 'rev-parse', 'HEAD')).toBe(base);
    expect(git(dir, 'branch', '--show-current')).toBe('orca/r1/t1');
    expect(status(dir)).toBe('');
    expect(readFileSync(path.join(dir, 'a.txt'), 'utf8')).toBe('one\n');
    expect(worktreeFolders(repo)).toContain(dir);
    // Refilled after the take, in the background: three ready again.
    await pool.idle();
    expect(ready(folder)).toHaveLength(3);
    await pool.close();
  });

  it('refuses a worktree that gained an entry in a folder below its root after its background check, an ignored one included', async () => {
    const files = { 'a.txt': 'one\n', '.gitignore': '*.log\n', 'src/deep/b.txt': 'b\n', 'src/c.txt': 'c\n' };
    const { repo, home, pool, lines, base, place } = setUp(4, files);
    pool.warm(place);
    await pool.idle();
    const folder = pool.folder('r1', repo);
    const names = ready(folder);
    expect(names).toHaveLength(4);
    // Each recorded by the check that settled it, in its own git folder, never in the tree.
    for (const name of names) expect(existsSync(path.join(worktreeGitDir(path.join(folder, name)), 'orca-pool-check.json'))).toBe(true);
    const [first, second, third, fourth] = names.map((name) => path.join(folder, name));
    writeFileSync(path.join(first!, 'src', 'deep', 'stray.txt'), 'x\n');
    writeFileSync(path.join(second!, 'src', 'build.log'), 'ignored\n');
    mkdirSync(path.join(third!, 'src', 'deep', 'new'));
    writeFileSync(path.join(third!, 'src', 'deep', 'new', 'file.txt'), 'new\n');
    writeFileSync(path.join(fourth!, 'src', 'c.txt'), 'changed in place\n');
    const dir = home.worktree('r1', 't1');
    expect(await pool.take(place, dir, 'orca/r1/t1')).toBeUndefined();
    expect(lines.filter((line) => line.includes('was not clean, removed'))).toHaveLength(4);
    expect(ready(folder)).toEqual([]);
    // The one changed in place was at the base, its branch made while it was checked: the branch went with it.
    expect(git(repo, 'branch', '--list', 'orca/r1/t1')).toBe('');

    pool.warm(place);
    await pool.idle();
    expect(await pool.take(place, dir, 'orca/r1/t1')).toBe(base);
    // The record describes an idle worktree: the take removes it.
    expect(existsSync(path.join(worktreeGitDir(dir), 'orca-pool-check.json'))).toBe(false);
    expect(status(dir)).toBe('');
    await pool.close();
  });

  it('with its check deferred, hands a worktree at the base out on its branch at once and says after what changed in place', async () => {
    const files = { 'a.txt': 'one\n', 'src/c.txt': 'c\n' };
    const { repo, home, pool, lines, base, place } = setUp(1, files);
    const folder = pool.folder('r1', repo);
    const readyOne = async () => {
      pool.warm(place);
      await pool.idle();
      const names = ready(folder);
      expect(names).toHaveLength(1);
      return path.join(folder, names[0]!);
    };
    // One that gained an entry is seen by its folder's times, and refused before the take returns.
    writeFileSync(path.join(await readyOne(), 'src', 'stray.txt'), 'x\n');
    const dir = home.worktree('r1', 't1');
    expect(await pool.takeChecked(place, dir, 'orca/r1/t1', { deferCheck: true })).toBeUndefined();
    expect(lines.filter((line) => line.includes('was not clean, removed'))).toHaveLength(1);

    // One changed in place is handed out on its branch, and its check says so after.
    writeFileSync(path.join(await readyOne(), 'src', 'c.txt'), 'changed in place\n');
    const taken = await pool.takeChecked(place, dir, 'orca/r1/t1', { deferCheck: true });
    expect(taken).toMatchObject({ start: base, checkedClean: true });
    expect(git(dir, 'branch', '--show-current')).toBe('orca/r1/t1');
    expect(await taken!.pendingCheck).toMatch(/src\/c\.txt/);

    // A clean one: its check finds nothing.
    await readyOne();
    const clean = await pool.takeChecked(place, home.worktree('r1', 't2'), 'orca/r1/t2', { deferCheck: true });
    expect(clean?.pendingCheck).toBeDefined();
    expect(await clean!.pendingCheck).toBeUndefined();
    await pool.close();
  });

  it('survives a merge that changes files its worktrees hold: taken, they have the merged content and are clean', async () => {
    const { repo, home, pool, base, place } = setUp(2, { 'a.txt': 'one\n', 'b/c.txt': 'c\n' });
    pool.warm(place);
    await pool.idle();
    const folder = pool.folder('r1', repo);
    expect(ready(folder)).toHaveLength(2);

    // A merge on the integration branch changes, adds and removes files the pooled worktrees hold.
    git(repo, 'switch', '-q', '-c', 'orca/r1/integration');
    git(repo, 'rm', '-q', 'b/c.txt');
    const merged = commitFiles(repo, { 'a.txt': 'merged\n', 'new.txt': 'new\n' }, 'merged a task');
    expect(merged).not.toBe(base);

    // A job whose base is the new head, before the pool followed it: the worktree is brought there.
    const early = home.worktree('r1', 'early');
    expect(await pool.take({ ...place, base: merged }, early, 'orca/r1/early')).toBe(merged);
    expect(git(early, 'rev-parse', 'HEAD')).toBe(merged);
    expect(readFileSync(path.join(early, 'a.txt'), 'utf8')).toBe('merged\n');
    expect(existsSync(path.join(early, 'b/c.txt'))).toBe(false);
    expect(status(early)).toBe('');

    // After the take the pool moved to the newer base: its idle worktrees are at the merge.
    await pool.idle();
    expect(ready(folder)).toHaveLength(2);
    for (const name of ready(folder)) {
      expect(git(path.join(folder, name), 'rev-parse', 'HEAD')).toBe(merged);
      expect(status(path.join(folder, name))).toBe('');
    }
    const later = home.worktree('r1', 'later');
    expect(await pool.take({ ...place, base: merged }, later, 'orca/r1/later')).toBe(merged);
    expect(readFileSync(path.join(later, 'new.txt'), 'utf8')).toBe('new\n');
    expect(status(later)).toBe('');
    // An older base never moves the pool back.
    pool.warm(place);
    await pool.idle();
    for (const name of ready(folder)) expect(git(path.join(folder, name), 'rev-parse', 'HEAD')).toBe(merged);
    await pool.close();
  });

  it('a job still gets its worktree when the pool has none ready, and the pool goes with its run', async () => {
    const { repo, home, pool, base } = setUp(2);
    const job = AgentJobSchema.parse(scriptedJob({ runId: 'r2', taskId: 't1', repo, base, turns: [reportTurn()] }));
    const hooks = { config: NO_HOOKS, context: () => ({}) as never };
    const cold = await prepareWorkspace(job, home, hooks, { pool });
    expect(cold).toMatchObject({ kind: 'branch', dir: home.worktree('r2', 't1'), start: base, pooled: false });
    expect(git(cold.dir, 'branch', '--show-current')).toBe('orca/r2/t1');

    // A read-only job of the run warms its pool; the next writing job takes from it.
    const view = AgentJobSchema.parse(
      scriptedJob({ runId: 'r2', taskId: 'explore', repo, base, turns: [reportTurn()], role: { workspace: 'view' } }),
    );
    await prepareWorkspace(view, home, hooks, { pool });
    await pool.idle();
    const second = AgentJobSchema.parse(scriptedJob({ runId: 'r2', taskId: 't2', repo, base, turns: [reportTurn()] }));
    const warm = await prepareWorkspace(second, home, hooks, { pool });
    expect(warm).toMatchObject({ kind: 'branch', dir: home.worktree('r2', 't2'), start: base, pooled: true });
    expect(git(warm.dir, 'branch', '--show-current')).toBe('orca/r2/t2');
    // Clean but for what orca placed for the job (.env.orca, ignored).
    expect(git(warm.dir, 'status', '--porcelain', '--untracked-files=all')).toBe('');
    await pool.close();

    const folder = pool.folder('r2', repo);
    expect(ready(folder).length).toBeGreaterThan(0);
    expect(await removeRunPools(home, 'r2', [repo])).toEqual([folder]);
    expect(existsSync(home.runPools('r2'))).toBe(false);
    expect(worktreeFolders(repo).filter((dir) => dir.includes(`${path.sep}pool${path.sep}`))).toEqual([]);
    // The jobs' own worktrees are theirs: the pool's removal leaves them.
    expect(worktreeFolders(repo)).toEqual(expect.arrayContaining([cold.dir, warm.dir]));
  });

  it('closed while filling, it leaves no half-made worktree and nothing git lists that is not on disk', async () => {
    const files = Object.fromEntries(Array.from({ length: 2_000 }, (_, i) => [`src/f${i}.txt`, `${i}\n`]));
    const { repo, pool, place } = setUp(4, files);
    pool.warm(place);
    // Closed as soon as the first worktree is being checked out.
    const folder = pool.folder('r1', repo);
    const filling = () => existsSync(folder) && readdirSync(folder).some((name) => name.endsWith('.busy'));
    while (!filling() && ready(folder).length < 4) await new Promise((resolve) => setTimeout(resolve, 2));
    await pool.close();
    expect(readdirSync(folder).filter((name) => name.endsWith('.busy'))).toEqual([]);
    for (const dir of worktreeFolders(repo)) expect(existsSync(dir), dir).toBe(true);
    for (const dir of ready(folder)) expect(status(path.join(folder, dir))).toBe('');
  });

  it("checks out in the background at a lower CPU priority: git's processes and what they start run at niceness 10", async () => {
    const { repo, pool, place } = setUp(2);
    // A post-checkout hook (run by the pool's checkout, as by `worktree add`) writes down its niceness: field 19 of /proc/self/stat.
    const seen = path.join(repo, '.git', 'niceness.txt');
    writeFileSync(path.join(repo, '.git', 'hooks', 'post-checkout'), `#!/bin/sh\ncut -d' ' -f19 /proc/$$/stat >> '${seen}'\n`, {
      mode: 0o755,
    });
    const own = Number(readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ')[16]);
    pool.warm(place);
    await pool.idle();
    const found = readFileSync(seen, 'utf8').split('\n').filter(Boolean).map(Number);
    expect(found).toHaveLength(2);
    expect(found).toEqual([Math.min(own + 10, 19), Math.min(own + 10, 19)]);
    await pool.close();
  });

  it('ORCA_POOL_SIZE=0 turns the pool off', async () => {
    const before = process.env.ORCA_POOL_SIZE;
    process.env.ORCA_POOL_SIZE = '0';
    try {
      const { pool, place, repo } = setUp(4);
      expect(pool.enabled).toBe(false);
      pool.warm(place);
      await pool.idle();
      expect(existsSync(pool.folder('r1', repo))).toBe(false);
      process.env.ORCA_POOL_SIZE = 'many';
      expect(() => setUp(4)).toThrow(/ORCA_POOL_SIZE=many is invalid.*whole number/);
    } finally {
      if (before === undefined) delete process.env.ORCA_POOL_SIZE;
      else process.env.ORCA_POOL_SIZE = before;
    }
  });

  it('two processes taking at once never get the same worktree', { timeout: 120_000 }, async () => {
    const { repo, home, pool, place } = setUp(6);
    pool.warm(place);
    await pool.idle();
    await pool.close();
    const folder = pool.folder('r1', repo);
    const pooled = new Set(ready(folder).map((name) => realpathSync(worktreeGitDir(path.join(folder, name)))));
    expect(pooled.size).toBe(6);

    // Each process takes three at once, from the compiled pool (as a worker does).
    const module = pathToFileURL(path.join(packageRoot(), 'dist', 'shared', 'core', 'git', 'worktreePool.js')).href;
    const homeModule = pathToFileURL(path.join(packageRoot(), 'dist', 'shared', 'core', 'runtime', 'orcaHome.js')).href;
    const taker = (who: string) =>
      exec(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `const { WorktreePool } = await import(${JSON.stringify(module)});
           const { OrcaHome } = await import(${JSON.stringify(homeModule)});
           const home = new OrcaHome(${JSON.stringify(home.root)});
           const pool = new WorktreePool(home, { slots: 6 });
           const place = ${JSON.stringify(place)};
           const dirs = [0, 1, 2].map((i) => home.worktree('r1', '${who}' + i));
           const got = await Promise.all(dirs.map((dir, i) => pool.take(place, dir, 'orca/r1/${who}' + i)));
           await pool.close();
           console.log(JSON.stringify({ dirs, got }));`,
        ],
        { env: { ...process.env, ORCA_POOL_SIZE: '' } },
      );
    const outputs = await Promise.all([taker('a'), taker('b')]);
    const taken = outputs.flatMap(({ stdout }) => {
      const { dirs, got } = JSON.parse(stdout) as { dirs: string[]; got: (string | null)[] };
      expect(got.every((commit) => commit === place.base)).toBe(true);
      return dirs;
    });
    const gitDirs = taken.map((dir) => realpathSync(worktreeGitDir(dir)));
    expect(new Set(gitDirs).size).toBe(6);
    for (const dir of taken) {
      expect(status(dir)).toBe('');
      expect(git(dir, 'branch', '--show-current')).toBe(`orca/r1/${path.basename(dir)}`);
    }
    // Every worktree git lists is on disk (the processes left the pool consistent when they closed).
    for (const dir of worktreeFolders(repo)) expect(existsSync(dir)).toBe(true);
  });
});
