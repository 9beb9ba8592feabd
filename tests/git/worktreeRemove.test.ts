import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { commonGitDir } from '../../shared/core/git/repoLock.js';
import { removeWorktree } from '../../shared/core/git/worktree.js';
import { git, makeRepo, worktreeFolders } from '../support/gitRepo.js';
import { tempDir } from '../support/tempDir.js';

/** A repository and a linked worktree of it on a branch, with uncommitted and ignored files in it. */
function linked(): { repo: string; dir: string; admin: string } {
  const repo = realpathSync(makeRepo({ 'a.txt': 'one\n', '.gitignore': '*.log\n' }));
  const dir = path.join(realpathSync(tempDir('orca-worktree-remove-')), 'w');
  git(repo, 'worktree', 'add', '--quiet', '-b', 'orca/r1/t1', dir, 'HEAD');
  writeFileSync(path.join(dir, 'a.txt'), 'changed\n');
  mkdirSync(path.join(dir, 'deep', 'er'), { recursive: true });
  writeFileSync(path.join(dir, 'deep', 'er', 'new.txt'), 'new\n');
  writeFileSync(path.join(dir, 'build.log'), 'ignored\n');
  return { repo, dir, admin: git(dir, 'rev-parse', '--absolute-git-dir') };
}

describe('removing a linked worktree without git', () => {
  it('leaves the repository as `git worktree remove --force --force` would: folder, record and empty worktrees/ gone, the branch kept', async () => {
    const { repo, dir, admin } = linked();
    // No git on the PATH while it goes: a plain worktree is removed without a process (but for
    // the repository's git folder, asked once per process and repository).
    await commonGitDir(repo);
    const pathWas = process.env.PATH;
    process.env.PATH = '';
    try {
      await removeWorktree(repo, dir);
    } finally {
      process.env.PATH = pathWas;
    }
    expect(existsSync(dir)).toBe(false);
    expect(existsSync(admin)).toBe(false);
    expect(existsSync(path.join(repo, '.git', 'worktrees'))).toBe(false);
    expect(worktreeFolders(repo)).toEqual([repo]);
    expect(git(repo, 'worktree', 'list', '--porcelain')).not.toMatch(/prunable/);
    expect(git(repo, 'branch', '--list', 'orca/r1/t1')).toContain('orca/r1/t1');
    // The branch is free again: git checks it out elsewhere.
    git(repo, 'worktree', 'add', '--quiet', path.join(path.dirname(dir), 'again'), 'orca/r1/t1');
  });

  it("keeps the repository's other worktrees and their folder", async () => {
    const { repo, dir } = linked();
    const other = path.join(path.dirname(dir), 'other');
    git(repo, 'worktree', 'add', '--quiet', '--detach', other, 'HEAD');
    await removeWorktree(repo, dir);
    expect(worktreeFolders(repo)).toEqual([repo, other]);
    expect(git(other, 'status', '--porcelain')).toBe('');
  });

  it('leaves a locked worktree to git, which removes it all the same', async () => {
    const { repo, dir, admin } = linked();
    git(repo, 'worktree', 'lock', dir);
    await removeWorktree(repo, dir);
    expect(existsSync(dir)).toBe(false);
    expect(existsSync(admin)).toBe(false);
    expect(worktreeFolders(repo)).toEqual([repo]);
  });

  it('never deletes the folder a rewritten `.git` pointer names outside the repository, even one that names the worktree back', async () => {
    const { repo, dir, admin } = linked();
    // An agent's write: the pointer aimed at a folder of the user's, made to look like an admin folder.
    const victim = path.join(realpathSync(tempDir('orca-worktree-victim-')), 'worktrees', 'w');
    mkdirSync(victim, { recursive: true });
    writeFileSync(path.join(victim, 'gitdir'), `${path.join(dir, '.git')}\n`);
    writeFileSync(path.join(victim, 'precious.txt'), 'keep me\n');
    writeFileSync(path.join(dir, '.git'), `gitdir: ${victim}\n`);
    await removeWorktree(repo, dir);
    expect(readFileSync(path.join(victim, 'precious.txt'), 'utf8')).toBe('keep me\n');
    expect(existsSync(dir)).toBe(false);
    // git's own record of the real worktree is taken by its prune.
    expect(existsSync(admin)).toBe(false);
    expect(worktreeFolders(repo)).toEqual([repo]);
  });

  it('never removes the main worktree: its `.git` is a folder, git refuses, and so does orca, saying why', async () => {
    const { repo } = linked();
    await expect(removeWorktree(repo, repo)).rejects.toThrow(/is a repository's main worktree, not one orca made: it was not removed/);
    expect(existsSync(path.join(repo, 'a.txt'))).toBe(true);
    expect(existsSync(path.join(repo, '.git', 'HEAD'))).toBe(true);
  });
});
