import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { integrationBranch, orcaBranch, parseOrcaBranch, parseWipRef, wipRef } from '../../shared/core/git/orcaBranch.js';
import { commitsOnlyIn, mergedInto } from '../../shared/core/git/reachability.js';
import { saveWorkInProgress } from '../../shared/core/git/workInProgress.js';
import { addWorktree } from '../../shared/core/git/worktree.js';
import { git, makeRepo } from '../support/gitRepo.js';
import { tempDir } from '../support/tempDir.js';

async function taskWorktree(files: Record<string, string> = { 'a.txt': 'a\n', 'gone.txt': 'gone\n', '.gitignore': 'build/\n' }) {
  const repo = makeRepo(files);
  const base = git(repo, 'rev-parse', 'HEAD');
  const dir = path.join(tempDir('orca-wip-'), 't1');
  await addWorktree({ repo, dir, base, branch: orcaBranch('r1', 't1') });
  return { repo, base, dir };
}

describe('saved work in progress', () => {
  it('commits changed, deleted and new files to the ref, leaving the worktree, its index and its branch as they were', async () => {
    const { repo, base, dir } = await taskWorktree();
    writeFileSync(path.join(dir, 'a.txt'), 'changed\n');
    rmSync(path.join(dir, 'gone.txt'));
    mkdirSync(path.join(dir, 'notes'));
    writeFileSync(path.join(dir, 'notes', 'new.txt'), 'new\n');
    writeFileSync(path.join(dir, 'staged.txt'), 'staged\n');
    git(dir, 'add', 'staged.txt');
    // Build output and a dependency folder orca linked in are no work of the agent's.
    mkdirSync(path.join(dir, 'build'));
    writeFileSync(path.join(dir, 'build', 'out.js'), 'built\n');
    symlinkSync(path.join(repo, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    const statusBefore = git(dir, 'status', '--porcelain');

    const ref = wipRef('r1', 't1');
    const saved = await saveWorkInProgress(dir, ref, 'wip of t1');
    expect(saved).toMatchObject({ ref, written: true, files: ['a.txt', 'gone.txt', 'notes/new.txt', 'staged.txt'] });
    expect(git(repo, 'rev-parse', ref)).toBe(saved!.commit);
    expect(git(repo, 'rev-parse', `${ref}^`)).toBe(base);
    expect(git(repo, 'show', `${ref}:a.txt`)).toBe('changed');
    expect(git(repo, 'show', `${ref}:notes/new.txt`)).toBe('new');
    expect(git(repo, 'ls-tree', '-r', '--name-only', ref).split('\n').sort()).toEqual([
      '.gitignore',
      'a.txt',
      'notes/new.txt',
      'staged.txt',
    ]);
    expect(git(repo, 'log', '-1', '--format=%B', ref)).toBe('wip of t1');
    // Untouched: the files, what is staged, the branch; and the ref is no branch.
    expect(git(dir, 'status', '--porcelain')).toBe(statusBefore);
    expect(readFileSync(path.join(dir, 'a.txt'), 'utf8')).toBe('changed\n');
    expect(git(repo, 'rev-parse', orcaBranch('r1', 't1'))).toBe(base);
    expect(git(repo, 'branch', '--list', '--format=%(refname:short)').split('\n').sort()).toEqual(['main', 'orca/r1/t1']);
  });

  it('writes nothing for a worktree with nothing beyond its HEAD, and nothing new for the same tree twice', async () => {
    const { repo, dir } = await taskWorktree();
    const ref = wipRef('r1', 't1');
    expect(await saveWorkInProgress(dir, ref, 'wip')).toBeUndefined();
    expect(git(repo, 'for-each-ref', 'refs/orca/')).toBe('');
    writeFileSync(path.join(dir, 'a.txt'), 'changed\n');
    const first = await saveWorkInProgress(dir, ref, 'wip');
    const again = await saveWorkInProgress(dir, ref, 'wip');
    expect(again).toMatchObject({ commit: first!.commit, written: false });
  });

  it('keeps an earlier, different save as the second parent of the new one', async () => {
    const { repo, base, dir } = await taskWorktree();
    const ref = wipRef('r1', 't1');
    writeFileSync(path.join(dir, 'a.txt'), 'first try\n');
    const first = await saveWorkInProgress(dir, ref, 'first');
    writeFileSync(path.join(dir, 'a.txt'), 'second try\n');
    const second = await saveWorkInProgress(dir, ref, 'second');
    expect(second!.commit).not.toBe(first!.commit);
    expect(git(repo, 'rev-parse', `${ref}^1`)).toBe(base);
    expect(git(repo, 'rev-parse', `${ref}^2`)).toBe(first!.commit);
    expect(git(repo, 'show', `${ref}^2:a.txt`)).toBe('first try');
  });

  it('refuses a folder that is no worktree of its own, rather than saving the repository around it', async () => {
    const repo = makeRepo();
    const inside = path.join(repo, 'sub');
    mkdirSync(inside);
    writeFileSync(path.join(inside, 'x.txt'), 'x\n');
    await expect(saveWorkInProgress(inside, wipRef('r1', 't1'), 'wip')).rejects.toThrow(/is not a git worktree/);
    expect(git(repo, 'for-each-ref', 'refs/orca/')).toBe('');
  });
});

describe("orca's names in a repository", () => {
  it('makes and reads back branch and work-in-progress names, and nothing else', () => {
    expect(orcaBranch('r1', 't1')).toBe('orca/r1/t1');
    expect(integrationBranch('r1')).toBe('orca/r1/integration');
    expect(parseOrcaBranch('orca/r1/t1')).toEqual({ runId: 'r1', taskId: 't1' });
    expect(parseOrcaBranch('refs/heads/orca/r1/integration')).toEqual({ runId: 'r1', taskId: 'integration' });
    for (const other of ['main', 'orca/r1', 'orca/r1/t1/x', 'feature/orca/r1/t1', 'orca/../t1', 'refs/remotes/orca/r1/t1'])
      expect(parseOrcaBranch(other), other).toBeUndefined();
    expect(wipRef('r1', 't1')).toBe('refs/orca/wip/r1/t1');
    expect(parseWipRef('refs/orca/wip/r1/t1')).toEqual({ runId: 'r1', taskId: 't1' });
    expect(parseWipRef('refs/heads/orca/r1/t1')).toBeUndefined();
  });
});

describe('what a removal would lose', () => {
  it('counts the commits no other ref reaches, and names the branches a result is merged into', async () => {
    const repo = makeRepo();
    const base = git(repo, 'rev-parse', 'HEAD');
    git(repo, 'switch', '--quiet', '-c', 'orca/r1/t1');
    git(repo, 'commit', '--quiet', '--allow-empty', '-m', 'one');
    git(repo, 'commit', '--quiet', '--allow-empty', '-m', 'two');
    const tip = git(repo, 'rev-parse', 'HEAD');
    git(repo, 'switch', '--quiet', 'main');
    git(repo, 'branch', 'orca/r1/integration', 'orca/r1/t1');
    const t1 = 'refs/heads/orca/r1/t1';
    const integration = 'refs/heads/orca/r1/integration';
    expect(await commitsOnlyIn(repo, tip, [t1])).toBe(0);
    expect(await commitsOnlyIn(repo, tip, [t1, integration])).toBe(2);
    expect(await mergedInto(repo, tip)).toEqual([]);
    expect(await mergedInto(repo, base)).toEqual(['main']);
    git(repo, 'merge', '--quiet', '--ff-only', 'orca/r1/integration');
    expect(await mergedInto(repo, tip)).toEqual(['main']);
    expect(await commitsOnlyIn(repo, tip, [t1, integration])).toBe(0);
  });
});
