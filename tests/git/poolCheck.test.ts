import { mkdirSync, realpathSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { poolFolderTimes, recordPoolCheck, takePoolCheck } from '../../shared/core/git/poolCheck.js';
import { git, makeRepo } from '../support/gitRepo.js';
import { tempDir } from '../support/tempDir.js';

/** A linked worktree of a fresh repository at its head, and a record of its folders taken now. */
function recorded(): { dir: string; head: string } {
  const repo = realpathSync(makeRepo({ 'a.txt': 'one\n', 'src/deep/b.txt': 'b\n', 'src/c.txt': 'c\n' }));
  const dir = path.join(tempDir('orca-pool-check-'), 'w');
  git(repo, 'worktree', 'add', '--quiet', '--detach', dir, 'HEAD');
  const head = git(dir, 'rev-parse', 'HEAD');
  const folders = git(dir, 'ls-tree', '-r', '-d', '--name-only', head).split('\n').filter(Boolean);
  // As the pool's are (its check waits a second after the checkout): folders last changed before the
  // record, so a change after it gets other times even on a clock coarser than the test's steps.
  const before = new Date(Date.now() - 60_000);
  for (const folder of folders) utimesSync(path.join(dir, folder), before, before);
  recordPoolCheck(dir, poolFolderTimes(dir, head, folders));
  return { dir, head };
}

describe("the pool check's record of a worktree's folders", () => {
  it('holds for a worktree nobody touched, and is used once', () => {
    const { dir, head } = recorded();
    expect(takePoolCheck(dir)).toBe(head);
    expect(takePoolCheck(dir)).toBeUndefined();
  });

  it('holds after the worktree itself is moved (the root is compared by its entries)', () => {
    const { dir, head } = recorded();
    const moved = path.join(path.dirname(dir), 'moved');
    git(dir, 'worktree', 'move', dir, moved);
    expect(takePoolCheck(moved)).toBe(head);
  });

  it('fails for an entry made, removed or renamed anywhere in the tree, or a moved HEAD', () => {
    const cases: ((dir: string) => void)[] = [
      (dir) => writeFileSync(path.join(dir, 'stray.txt'), 'x\n'),
      (dir) => writeFileSync(path.join(dir, 'src', 'deep', 'stray.log'), 'x\n'),
      (dir) => mkdirSync(path.join(dir, 'src', 'new')),
      (dir) => rmSync(path.join(dir, 'src', 'c.txt')),
      (dir) => {
        // Made and removed again: the folder's times still changed.
        writeFileSync(path.join(dir, 'src', 'deep', 'gone.txt'), 'x\n');
        rmSync(path.join(dir, 'src', 'deep', 'gone.txt'));
      },
      (dir) => git(dir, 'commit', '--quiet', '--allow-empty', '-m', 'HEAD moved'),
    ];
    for (const change of cases) {
      const { dir } = recorded();
      change(dir);
      expect(takePoolCheck(dir)).toBeUndefined();
    }
  });

  it("does not see a tracked file's bytes changed in place: that is what the take still asks git about", () => {
    const { dir, head } = recorded();
    writeFileSync(path.join(dir, 'src', 'c.txt'), 'changed\n');
    expect(takePoolCheck(dir)).toBe(head);
    expect(git(dir, 'status', '--porcelain', '--untracked-files=no')).toContain('src/c.txt');
  });
});
