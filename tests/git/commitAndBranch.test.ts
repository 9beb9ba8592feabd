import { describe, expect, it } from 'vitest';
import { branchExists, resolveCommit } from '../../shared/core/git/git.js';
import { commitFiles, git, makeRepo } from '../support/gitRepo.js';

describe('a commit a job names, and its task branch', () => {
  it('resolves a name every time (it may move) and refuses one that names no commit, saying so', async () => {
    const repo = makeRepo();
    const first = git(repo, 'rev-parse', 'HEAD');
    expect(await resolveCommit(repo, 'main')).toBe(first);
    const second = commitFiles(repo, { 'b.txt': 'b\n' }, 'second');
    expect(await resolveCommit(repo, 'main')).toBe(second);
    expect(await resolveCommit(repo, first)).toBe(first);
    await expect(resolveCommit(repo, 'no-such-branch')).rejects.toThrow(
      /no-such-branch is not a commit in .*pass an existing branch, tag or sha/,
    );
    // A full id that is no object here: refused, and asked again next time (a failure is not kept).
    const missing = 'f'.repeat(40);
    await expect(resolveCommit(repo, missing)).rejects.toThrow(/is not a commit/);
    await expect(resolveCommit(repo, missing)).rejects.toThrow(/is not a commit/);
    // The same id in another repository that lacks it is that repository's own question.
    await expect(resolveCommit(makeRepo({ 'other.txt': 'o\n' }), second)).rejects.toThrow(/is not a commit/);
  });

  it('finds a branch whether loose, packed or gone, as git branch --list does', async () => {
    const repo = makeRepo();
    expect(await branchExists(repo, 'main')).toBe(true);
    git(repo, 'branch', 'orca/r1/t1');
    expect(await branchExists(repo, 'orca/r1/t1')).toBe(true);
    git(repo, 'pack-refs', '--all');
    expect(await branchExists(repo, 'orca/r1/t1')).toBe(true);
    git(repo, 'branch', '-D', 'orca/r1/t1');
    expect(await branchExists(repo, 'orca/r1/t1')).toBe(false);
    expect(await branchExists(repo, 'orca/r1')).toBe(false);
  });
});
