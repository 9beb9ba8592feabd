import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mergeRefusal } from '../../coordinator/merge/mergeCheck.js';
import { branchRefusals, commitOwned, pointBranchAt } from '../../shared/policy/permissions/ownedCommit.js';
import { OwnedPaths } from '../../shared/policy/permissions/ownedPaths.js';
import { WorktreeWatch } from '../../shared/policy/permissions/worktreeWatch.js';
import { commitFiles, git, makeRepo } from '../support/gitRepo.js';
import { oldGitBin } from '../support/oldGit.js';
import { tempDir } from '../support/tempDir.js';

/** A repository and a task worktree of it on its own branch, as a worker prepares one. */
function taskWorktree(files: Record<string, string> = { 'src/a.ts': 'a\n', 'README.md': '# r\n' }) {
  const repo = makeRepo(files);
  const base = git(repo, 'rev-parse', 'HEAD');
  const dir = path.join(tempDir('orca-wt-'), 'task');
  git(repo, 'worktree', 'add', '-q', '-b', 'orca/r/t', dir, base);
  return { repo, base, dir };
}

describe("the task's branch pointed at its commit", () => {
  it('moves the branch and the index, with its own reflog line, whether HEAD is on the branch or not', async () => {
    const { base, dir } = taskWorktree();
    const commit = commitFiles(dir, { 'src/a.ts': 'changed\n' }, 'the change');
    git(dir, 'reset', '-q', '--hard', base);
    await pointBranchAt(dir, 'orca/r/t', commit);
    expect(git(dir, 'rev-parse', 'orca/r/t')).toBe(commit);
    expect(git(dir, 'symbolic-ref', 'HEAD')).toBe('refs/heads/orca/r/t');
    // The index follows the commit; the file on disk is left as it is.
    expect(git(dir, 'diff', '--cached', '--name-only', commit)).toBe('');
    expect(readFileSync(path.join(dir, 'src/a.ts'), 'utf8')).toBe('a\n');
    expect(git(dir, 'reflog', '-1', '--format=%gs', 'orca/r/t')).toContain('orca: the owned changes');

    // HEAD detached (an agent's checkout): the branch is moved by name all the same.
    git(dir, 'checkout', '-q', '--force', '--detach', base);
    await pointBranchAt(dir, 'orca/r/t', base);
    expect(git(dir, 'rev-parse', 'orca/r/t')).toBe(base);
  });
});

describe("the worktree's index moved to the commit", () => {
  it('leaves the worktree reading clean at its commit, its files untouched, with a git that has --no-refresh and one before it', async () => {
    // A git that answers `reset --no-refresh` as one before 2.36 does: a usage error.
    const bin = oldGitBin('--no-refresh', "error: unknown option `no-refresh'");
    for (const oldGit of [false, true]) {
      const { base, dir } = taskWorktree();
      writeFileSync(path.join(dir, 'src/a.ts'), `changed (old git: ${oldGit})\n`);
      writeFileSync(path.join(dir, 'src/new.ts'), 'new\n');
      const saved = process.env.PATH;
      if (oldGit) process.env.PATH = `${bin}:${saved}`;
      try {
        const made = await commitOwned(dir, 'task', { start: base, owned: new OwnedPaths(['src/**']), linked: [], branch: 'orca/r/t' });
        expect(git(dir, 'rev-parse', 'HEAD')).toBe(made.commit);
        expect(git(dir, 'diff', '--cached', '--name-only', made.commit!)).toBe('');
        expect(git(dir, 'status', '--porcelain')).toBe('');
        expect(readFileSync(path.join(dir, 'src/a.ts'), 'utf8')).toBe(`changed (old git: ${oldGit})\n`);
      } finally {
        process.env.PATH = saved;
      }
    }
  });
});

describe('what orca commits: exactly the owned changes', () => {
  it('leaves out changes outside the owned paths and guarded ones, even those the agent staged or committed itself', async () => {
    const { base, dir } = taskWorktree();
    writeFileSync(path.join(dir, 'src/a.ts'), 'owned change\n');
    writeFileSync(path.join(dir, 'README.md'), 'not owned\n');
    mkdirSync(path.join(dir, 'src/.claude'));
    writeFileSync(path.join(dir, 'src/.claude/settings.json'), '{}');
    writeFileSync(path.join(dir, 'src/.env'), 'KEY=1\n');
    // The agent committed a file it does not own and staged another.
    writeFileSync(path.join(dir, 'OTHER.md'), 'committed by the agent\n');
    git(dir, 'add', 'OTHER.md');
    git(dir, 'commit', '-q', '-m', 'agent commit');
    writeFileSync(path.join(dir, 'STAGED.md'), 'staged\n');
    git(dir, 'add', 'STAGED.md');

    const owned = new OwnedPaths(['src/**']);
    const made = await commitOwned(dir, 'task', { start: base, owned, linked: [], branch: 'orca/r/t' });

    expect(made.commit).toBeDefined();
    expect(git(dir, 'diff', '--name-only', base, made.commit!).split('\n')).toEqual(['src/a.ts']);
    expect(git(dir, 'rev-parse', 'orca/r/t')).toBe(made.commit);
    expect(git(dir, 'rev-parse', `${made.commit}^`)).toBe(base);
    expect(made.left.map((left) => [left.path, left.kind])).toEqual([
      ['OTHER.md', 'not_owned'],
      ['README.md', 'not_owned'],
      ['STAGED.md', 'not_owned'],
      ['src/.claude/settings.json', 'guarded'],
      ['src/.env', 'guarded'],
    ]);
    // The files themselves stay on disk, for the person inspecting the worktree.
    expect(readFileSync(path.join(dir, 'README.md'), 'utf8')).toBe('not owned\n');
    expect(await branchRefusals(dir, base, made.commit!, owned)).toEqual([]);
  });

  it('commits only on the task branch, never on the branch HEAD was pointed at', async () => {
    const { repo, base, dir } = taskWorktree();
    writeFileSync(path.join(dir, 'src/a.ts'), 'owned change\n');
    git(dir, 'symbolic-ref', 'HEAD', 'refs/heads/main');
    await expect(
      commitOwned(dir, 'task', { start: base, owned: new OwnedPaths(['src/**']), linked: [], branch: 'orca/r/t' }),
    ).rejects.toThrow(/is on refs\/heads\/main, not on the task's branch refs\/heads\/orca\/r\/t/);
    expect(git(repo, 'rev-parse', 'main')).toBe(base);
  });

  it('moves the branch back to its start when no owned change is left', async () => {
    const { base, dir } = taskWorktree();
    writeFileSync(path.join(dir, 'README.md'), 'not owned\n');
    git(dir, 'commit', '-qam', 'agent commit');
    const made = await commitOwned(dir, 'task', { start: base, owned: new OwnedPaths(['src/**']), linked: [], branch: 'orca/r/t' });
    expect(made.commit).toBeUndefined();
    expect(git(dir, 'rev-parse', 'orca/r/t')).toBe(base);
  });

  it('commits a guarded path only when the task names it literally (an allow rule let a file tool write it)', async () => {
    const { base, dir } = taskWorktree();
    mkdirSync(path.join(dir, '.claude/commands'), { recursive: true });
    writeFileSync(path.join(dir, '.claude/commands/review.md'), 'Review the diff.\n');
    const wildcard = await commitOwned(dir, 'task', { start: base, owned: new OwnedPaths(['**']), linked: [], branch: 'orca/r/t' });
    expect(wildcard.commit).toBeUndefined();
    const named = await commitOwned(dir, 'task', {
      start: base,
      owned: new OwnedPaths(['.claude/commands/*.md']),
      linked: [],
      branch: 'orca/r/t',
    });
    expect(git(dir, 'diff', '--name-only', base, named.commit!)).toBe('.claude/commands/review.md');
  });
});

describe("the start's index shared by the commits of one start", () => {
  /** Several task worktrees of one repository on one start, as a wave of jobs has them. */
  function wave(tasks: number, config: string[] = []) {
    const repo = makeRepo({ 'src/a.ts': 'a\n', 'src/b.ts': 'b\n', 'lib/c.ts': 'c\n', 'README.md': '# r\n' });
    for (const setting of config) git(repo, 'config', ...setting.split(' '));
    const base = git(repo, 'rev-parse', 'HEAD');
    const dirs = Array.from({ length: tasks }, (_, i) => {
      const dir = path.join(tempDir('orca-wt-'), `t${i}`);
      git(repo, 'worktree', 'add', '-q', '-b', `orca/r/t${i}`, dir, base);
      return dir;
    });
    return { base, dirs };
  }

  it("commits exactly each task's owned changes, one after another and at once, none of another task's", async () => {
    const { base, dirs } = wave(4);
    const change = (i: number) => {
      writeFileSync(path.join(dirs[i]!, 'src/a.ts'), `a by t${i}\n`);
      rmSync(path.join(dirs[i]!, 'src/b.ts'));
      writeFileSync(path.join(dirs[i]!, `src/new${i}.ts`), `new ${i}\n`);
      writeFileSync(path.join(dirs[i]!, 'lib/c.ts'), 'not owned\n');
    };
    for (let i = 0; i < dirs.length; i += 1) change(i);
    const owned = new OwnedPaths(['src/**']);
    const commit = (i: number) => commitOwned(dirs[i]!, `t${i}`, { start: base, owned, linked: [], branch: `orca/r/t${i}` });
    // The first alone (it reads the start's index), then the second alone (from the one kept), then two at once.
    const made = [await commit(0), await commit(1), ...(await Promise.all([commit(2), commit(3)]))];
    made.forEach((one, i) => {
      expect(git(dirs[i]!, 'diff', '--name-status', base, one.commit!).split('\n')).toEqual([
        'M\tsrc/a.ts',
        'D\tsrc/b.ts',
        `A\tsrc/new${i}.ts`,
      ]);
      expect(git(dirs[i]!, 'show', `${one.commit}:src/a.ts`)).toBe(`a by t${i}`);
      expect(git(dirs[i]!, 'show', `${one.commit}:lib/c.ts`)).toBe('c');
      expect(one.left.map((refusal) => refusal.path)).toEqual(['lib/c.ts']);
    });
  });

  it('commits as well where git splits the index (core.splitIndex: a shared part beside the index)', async () => {
    const { base, dirs } = wave(2, ['core.splitIndex true']);
    const owned = new OwnedPaths(['src/**']);
    for (const [i, dir] of dirs.entries()) {
      writeFileSync(path.join(dir, 'src/a.ts'), `split ${i}\n`);
      const made = await commitOwned(dir, `t${i}`, { start: base, owned, linked: [], branch: `orca/r/t${i}` });
      expect(git(dir, 'diff', '--name-only', base, made.commit!)).toBe('src/a.ts');
      expect(git(dir, 'show', `${made.commit}:src/b.ts`)).toBe('b');
    }
  });
});

describe("the coordinator's merge check", () => {
  it('refuses a branch that touches a guarded path or one its task does not own, saying which', async () => {
    const repo = makeRepo({ 'src/a.ts': 'a\n' });
    const base = git(repo, 'rev-parse', 'HEAD');
    git(repo, 'switch', '-q', '-c', 'orca/r/t');
    const tip = commitFiles(repo, { 'src/a.ts': 'b\n', '.claude/settings.json': '{"hooks":{}}', 'README.md': 'x\n' }, 'task');
    expect(await mergeRefusal(repo, base, tip, ['src/**'])).toBe(
      'not merged: the branch touches .claude/settings.json (guarded), README.md (outside the owned paths); the task owns src/**',
    );
    expect(await mergeRefusal(repo, base, tip, undefined)).toBe(
      'not merged: the branch touches .claude/settings.json (guarded); the task owns every path (but guarded ones)',
    );
    git(repo, 'switch', '-q', '-c', 'orca/r/clean', base);
    const clean = commitFiles(repo, { 'src/a.ts': 'c\n' }, 'only src');
    expect(await mergeRefusal(repo, base, clean, ['src/**'])).toBeUndefined();
  });
});

describe('the worktree watch on its own', () => {
  it('puts back a guarded file that was ignored and existed at the start, byte for byte', async () => {
    const { base, dir } = taskWorktree({ '.gitignore': '.env\n', 'src/a.ts': 'a\n' });
    writeFileSync(path.join(dir, '.env'), 'KEY=original\n');
    const watch = await WorktreeWatch.open({ root: dir, start: base, owned: new OwnedPaths(['src/**']), linked: [] });
    writeFileSync(path.join(dir, '.env'), 'KEY=changed\n');
    const found = await watch.check();
    expect(found.reverted.map((item) => item.path)).toEqual(['.env']);
    expect(readFileSync(path.join(dir, '.env'), 'utf8')).toBe('KEY=original\n');
  });

  it('puts back the shared git config and hooks, and a link leading out, and names unowned files until they are undone', async () => {
    const { repo, base, dir } = taskWorktree();
    const config = readFileSync(path.join(repo, '.git/config'), 'utf8');
    const watch = await WorktreeWatch.open({ root: dir, start: base, owned: new OwnedPaths(['src/**']), linked: [] });
    git(dir, 'config', 'core.hooksPath', '/nonexistent');
    // HEAD pointed at the user's branch: the host's commit would land there.
    git(dir, 'symbolic-ref', 'HEAD', 'refs/heads/main');
    writeFileSync(path.join(repo, '.git/hooks/post-checkout'), '#!/bin/sh\n', { mode: 0o755 });
    symlinkSync(repo, path.join(dir, 'src/out'));
    writeFileSync(path.join(dir, 'README.md'), 'changed\n');
    const found = await watch.check();
    expect(found.reverted.map((item) => path.basename(item.path)).sort()).toEqual(['HEAD', 'config', 'out', 'post-checkout']);
    expect(git(dir, 'symbolic-ref', 'HEAD')).toBe('refs/heads/orca/r/t');
    expect(found.toUndo.map((item) => item.path)).toEqual(['README.md']);
    expect(readFileSync(path.join(repo, '.git/config'), 'utf8')).toBe(config);
    expect(existsSync(path.join(repo, '.git/hooks/post-checkout'))).toBe(false);
    expect(existsSync(path.join(dir, 'src/out'))).toBe(false);
    rmSync(path.join(dir, 'README.md'));
    git(dir, 'checkout', '--', 'README.md');
    expect(await watch.remaining()).toEqual([]);
  });

  it("puts back the user's refs a command moved, made or removed (loose, packed, broken), and the object stores it borrowed", async () => {
    const { repo, base, dir } = taskWorktree();
    git(repo, 'branch', 'release', base);
    git(repo, 'tag', 'v1', base);
    git(repo, 'branch', 'packed', base);
    git(repo, 'pack-refs', '--all');
    const other = commitFiles(repo, { 'EVIL.txt': 'x\n' }, 'planted');
    git(repo, 'reset', '-q', '--hard', base);
    const watch = await WorktreeWatch.open({ root: dir, start: base, owned: new OwnedPaths(['src/**']), linked: [] });
    git(dir, 'update-ref', 'refs/heads/main', other);
    git(dir, 'update-ref', 'refs/heads/packed', other);
    git(dir, 'branch', 'planted', other);
    git(dir, 'tag', '-d', 'v1');
    writeFileSync(path.join(repo, '.git/refs/heads/release'), 'garbage\n');
    mkdirSync(path.join(repo, '.git/objects/info'), { recursive: true });
    writeFileSync(path.join(repo, '.git/objects/info/alternates'), `${tempDir('orca-borrowed-')}\n`);
    // orca's own refs move during a run (its merges, other jobs' commits): not this guard's.
    git(dir, 'update-ref', 'refs/heads/orca/r/other-task', other);
    const found = await watch.check();
    expect(found.reverted.map((item) => item.path.replace(`${repo}/.git/`, '')).sort()).toEqual([
      'objects/info/alternates',
      'refs/heads/main',
      'refs/heads/packed',
      'refs/heads/planted',
      'refs/heads/release',
      'refs/tags/v1',
    ]);
    expect(found.reverted.find((item) => item.path === 'refs/heads/main')?.reason).toContain(
      `moved from ${base.slice(0, 12)} to ${other.slice(0, 12)}, and put back`,
    );
    for (const ref of ['main', 'packed', 'release', 'v1']) expect(git(repo, 'rev-parse', ref)).toBe(base);
    expect(git(repo, 'branch', '--list', 'planted')).toBe('');
    expect(existsSync(path.join(repo, '.git/objects/info/alternates'))).toBe(false);
    expect(git(repo, 'rev-parse', 'orca/r/other-task')).toBe(other);
  });
});
