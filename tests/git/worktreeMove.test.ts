import { existsSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { commonGitDir } from '../../shared/core/git/repoLock.js';
import { moveWorktree } from '../../shared/core/git/worktreeMove.js';
import { git, makeRepo, worktreeFolders } from '../support/gitRepo.js';
import { tempDir } from '../support/tempDir.js';

/** A repository and a detached linked worktree of it, the way the pool makes them. */
function linked(): { repo: string; dir: string; head: string } {
  const repo = realpathSync(makeRepo({ 'a.txt': 'one\n', 'src/b.txt': 'b\n' }));
  const dir = path.join(realpathSync(tempDir('orca-worktree-move-')), 'w');
  git(repo, 'worktree', 'add', '--quiet', '--detach', dir, 'HEAD');
  return { repo, dir, head: git(dir, 'rev-parse', 'HEAD') };
}

describe('moving a linked worktree without git', () => {
  it('leaves it where git finds it, as `git worktree move` would: listed there, usable, kept by a prune', async () => {
    const { repo, dir, head } = linked();
    const to = path.join(path.dirname(dir), 'jobs', 'task');
    mkdirSync(path.dirname(to));
    // No git on the PATH while it moves: the move is made without a process on the job's way (but
    // for the repository's git folder, asked once per process and repository: the lock a mover
    // holds asked it already).
    await commonGitDir(repo);
    const pathWas = process.env.PATH;
    process.env.PATH = '';
    try {
      await moveWorktree(repo, dir, to);
    } finally {
      process.env.PATH = pathWas;
    }
    expect(existsSync(dir)).toBe(false);
    git(repo, 'worktree', 'prune');
    expect(worktreeFolders(repo)).toContain(to);
    expect(worktreeFolders(repo)).not.toContain(dir);
    expect(git(to, 'rev-parse', 'HEAD')).toBe(head);
    expect(git(to, 'status', '--porcelain', '--untracked-files=all', '--ignored')).toBe('');
    // git itself can move it on from there: its records agree with the folder.
    const again = path.join(path.dirname(dir), 'again');
    git(repo, 'worktree', 'move', to, again);
    expect(worktreeFolders(repo)).toContain(again);
  });

  it('leaves to git what it would refuse or do otherwise: a locked worktree is not moved', async () => {
    const { repo, dir } = linked();
    git(repo, 'worktree', 'lock', dir);
    await expect(moveWorktree(repo, dir, path.join(path.dirname(dir), 'elsewhere'))).rejects.toThrow(/locked/);
    expect(existsSync(dir)).toBe(true);
  });

  it('leaves to git a worktree whose `.git` names its admin folder relatively', async () => {
    const { repo, dir, head } = linked();
    const dotGit = path.join(dir, '.git');
    const admin = git(dir, 'rev-parse', '--absolute-git-dir');
    writeFileSync(dotGit, `gitdir: ${path.relative(dir, admin)}\n`);
    const to = path.join(path.dirname(dir), 'moved');
    await moveWorktree(repo, dir, to);
    expect(worktreeFolders(repo)).toContain(to);
    expect(git(to, 'rev-parse', 'HEAD')).toBe(head);
  });
});
