import { existsSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitAll, hasChanges } from '../../shared/core/git/commit.js';
import { checkSlug, isSlug } from '../../shared/core/git/slug.js';
import { addWorktree, listWorktrees, removeWorktree } from '../../shared/core/git/worktree.js';
import { recordStartState, startEntry } from '../../shared/core/git/worktreeStartState.js';
import { commitFiles, git, makeRepo } from '../support/gitRepo.js';
import { tempDir } from '../support/tempDir.js';

describe('worktrees', () => {
  it('starts from the base it is given, not from HEAD', async () => {
    const repo = makeRepo({ 'a.txt': 'one\n' });
    const base = git(repo, 'rev-parse', 'HEAD');
    commitFiles(repo, { 'a.txt': 'two\n' }, 'moves HEAD on');
    const dir = path.join(tempDir('orca-wt-'), 't1');
    const start = await addWorktree({ repo, dir, base, branch: 'orca/r1/t1' });
    expect(start).toBe(base);
    expect(readFileSync(path.join(dir, 'a.txt'), 'utf8')).toBe('one\n');
    expect(git(dir, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('orca/r1/t1');
  });

  it('survives many concurrent adds on one repository', async () => {
    const repo = makeRepo();
    const base = git(repo, 'rev-parse', 'HEAD');
    const root = tempDir('orca-wt-');
    const dirs = Array.from({ length: 12 }, (_, i) => path.join(root, `t${i}`));
    await Promise.all(dirs.map((dir, i) => addWorktree({ repo, dir, base, branch: `orca/r/t${i}` })));
    const listed = await listWorktrees(repo);
    for (const dir of dirs) expect(listed.map((w) => w.dir)).toContain(dir);
    await Promise.all(dirs.map((dir) => removeWorktree(repo, dir)));
    expect((await listWorktrees(repo)).length).toBe(1);
    for (const dir of dirs) expect(existsSync(dir)).toBe(false);
  });

  it("takes git's record of a worktree whose folder is gone already, or is no worktree any more", async () => {
    const repo = makeRepo({ 'a.txt': 'one\n' });
    const base = git(repo, 'rev-parse', 'HEAD');
    const gone = path.join(tempDir('orca-wt-'), 'gone');
    const unregistered = path.join(tempDir('orca-wt-'), 'unregistered');
    await addWorktree({ repo, dir: gone, base, branch: 'orca/r/gone' });
    await addWorktree({ repo, dir: unregistered, base, branch: 'orca/r/unregistered' });
    rmSync(gone, { recursive: true, force: true });
    // Its `.git` pointer gone, git no longer knows the folder as the worktree it records.
    rmSync(path.join(unregistered, '.git'));
    await removeWorktree(repo, gone);
    await removeWorktree(repo, unregistered);
    expect(await listWorktrees(repo)).toHaveLength(1);
    expect(git(repo, 'worktree', 'list', '--porcelain')).not.toMatch(/prunable/);
    expect(existsSync(unregistered)).toBe(false);
  });

  it('refuses a base that is not a commit, naming it', async () => {
    const repo = makeRepo();
    await expect(addWorktree({ repo, dir: path.join(tempDir(), 'x'), base: 'no-such-ref', branch: 'b' })).rejects.toThrow(
      /no-such-ref is not a commit/,
    );
  });

  it('refuses a branch that exists already, leaving it where it was and checking nothing out', async () => {
    const repo = makeRepo({ 'a.txt': 'one\n' });
    const base = git(repo, 'rev-parse', 'HEAD');
    git(repo, 'branch', 'orca/r1/taken');
    commitFiles(repo, { 'a.txt': 'two\n' }, 'moves HEAD on');
    const dir = path.join(tempDir('orca-wt-'), 'taken');
    await expect(addWorktree({ repo, dir, base: git(repo, 'rev-parse', 'HEAD'), branch: 'orca/r1/taken' })).rejects.toThrow(
      /branch orca\/r1\/taken already exists/,
    );
    expect(git(repo, 'rev-parse', 'orca/r1/taken')).toBe(base);
    expect(existsSync(dir)).toBe(false);
  });

  it('makes detached read-only views without a branch', async () => {
    const repo = makeRepo();
    const base = git(repo, 'rev-parse', 'HEAD');
    const dir = path.join(tempDir(), 'view');
    await addWorktree({ repo, dir, base });
    expect(git(dir, 'rev-parse', 'HEAD')).toBe(base);
    expect(git(repo, 'branch', '--list')).not.toContain('view');
  });

  it("has no changes while it holds only orca's own start files, ignored or not, and one beside them", async () => {
    const repo = makeRepo({ 'a.txt': 'one\n', '.gitignore': '.env.orca\n' });
    const dir = path.join(tempDir(), 'w');
    await addWorktree({ repo, dir, base: 'main', branch: 'orca/r/w' });
    writeFileSync(path.join(dir, '.env.orca'), 'PORT=1\n');
    writeFileSync(path.join(dir, '.env'), 'KEY=copied\n');
    recordStartState(dir, [startEntry(dir, '.env.orca', 'env'), startEntry(dir, '.env', 'included')]);
    expect(await hasChanges(dir)).toBe(false);
    writeFileSync(path.join(dir, 'new.txt'), 'new\n');
    expect(await hasChanges(dir)).toBe(true);
  });

  it('commits all changes, skips excluded links, and reports no commit when clean', async () => {
    const repo = makeRepo({ 'a.txt': 'one\n', '.gitignore': 'node_modules/\n' });
    const dir = path.join(tempDir(), 'w');
    await addWorktree({ repo, dir, base: 'main', branch: 'orca/r/w' });
    expect(await commitAll(dir, 'nothing')).toBeUndefined();
    symlinkSync(tempDir(), path.join(dir, 'node_modules'));
    writeFileSync(path.join(dir, 'a.txt'), 'changed\n');
    writeFileSync(path.join(dir, 'new.txt'), 'new\n');
    expect(await hasChanges(dir)).toBe(true);
    const sha = await commitAll(dir, 'work', { exclude: ['node_modules'] });
    expect(sha).toMatch(/^[0-9a-f]{40}$/);
    const files = git(dir, 'show', '--name-only', '--format=', 'HEAD').split('\n').sort();
    expect(files).toEqual(['a.txt', 'new.txt']);
  });
});

describe('slugs', () => {
  it('accepts the safe alphabet and refuses the rest', () => {
    expect(isSlug('t1.fix_a-b')).toBe(true);
    for (const bad of ['', 'a/b', '..', 'a..b', 'x'.repeat(65), 'semi;colon', 'space d']) expect(isSlug(bad)).toBe(false);
    expect(() => checkSlug('a/b', 'task id')).toThrow(/task id "a\/b" is not usable/);
  });
});
