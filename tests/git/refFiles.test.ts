import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RefFiles } from '../../shared/core/git/refFiles.js';
import { commitFiles, git, makeRepo } from '../support/gitRepo.js';
import { tempDir } from '../support/tempDir.js';

/** What git itself says of the same refs: the reader must agree with it in every layout. */
function gitRefs(dir: string): Map<string, string> {
  const out = git(dir, 'for-each-ref', '--format=%(refname) %(objectname)', 'refs/heads', 'refs/tags');
  return new Map(
    out
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split(' ') as [string, string]),
  );
}

describe('RefFiles', () => {
  it('reads a symbolic HEAD and loose branches and tags as git lists them', () => {
    const repo = makeRepo();
    const first = git(repo, 'rev-parse', 'HEAD');
    const second = commitFiles(repo, { 'a.txt': 'a\n' }, 'second');
    git(repo, 'branch', 'feature/deep/name', first);
    git(repo, 'tag', 'v1', first);
    git(repo, 'tag', '-a', '-m', 'annotated', 'v2', second);
    const refs = RefFiles.open(repo)!;
    expect(refs.head()).toEqual({ kind: 'symbolic', target: 'refs/heads/main' });
    expect(refs.resolve('HEAD')).toBe(second);
    expect(refs.resolve('refs/heads/feature/deep/name')).toBe(first);
    expect(refs.list(['refs/heads/', 'refs/tags/'])).toEqual(gitRefs(repo));
    expect(refs.resolve('refs/heads/missing')).toBeUndefined();
  });

  it('reads packed refs, and a loose ref wins over its packed entry', () => {
    const repo = makeRepo();
    const first = git(repo, 'rev-parse', 'HEAD');
    git(repo, 'branch', 'packed-only', first);
    git(repo, 'tag', '-a', '-m', 'peeled', 'v1', first);
    git(repo, 'pack-refs', '--all');
    const second = commitFiles(repo, { 'b.txt': 'b\n' }, 'second'); // main is loose again, packed at `first`
    const refs = RefFiles.open(repo)!;
    expect(refs.resolve('refs/heads/packed-only')).toBe(first);
    expect(refs.resolve('refs/heads/main')).toBe(second);
    expect(refs.resolve('HEAD')).toBe(second);
    expect(refs.list(['refs/heads/', 'refs/tags/'])).toEqual(gitRefs(repo));
  });

  it('follows a symbolic ref under refs/heads, and leaves broken ones out as for-each-ref does', () => {
    const repo = makeRepo();
    git(repo, 'symbolic-ref', 'refs/heads/alias', 'refs/heads/main');
    writeFileSync(path.join(repo, '.git', 'refs', 'heads', 'dangling'), 'ref: refs/heads/nowhere\n');
    writeFileSync(path.join(repo, '.git', 'refs', 'heads', 'garbage'), 'not a ref\n');
    const refs = RefFiles.open(repo)!;
    expect(refs.resolve('refs/heads/alias')).toBe(git(repo, 'rev-parse', 'main'));
    expect(refs.resolve('refs/heads/dangling')).toBeUndefined();
    const listed = refs.list(['refs/heads/']);
    expect(listed.get('refs/heads/alias')).toBe(git(repo, 'rev-parse', 'main'));
    expect(listed.has('refs/heads/dangling')).toBe(false);
    expect(listed.has('refs/heads/garbage')).toBe(false);
    expect(() => refs.resolve('refs/heads/garbage')).toThrow(/neither an object id/);
  });

  it('leaves out, loose and packed, the refs under the folders it is told to, and still follows a ref into them', () => {
    const repo = makeRepo();
    const first = git(repo, 'rev-parse', 'HEAD');
    const second = commitFiles(repo, { 'c.txt': 'c\n' }, 'second');
    git(repo, 'branch', 'orca/r1/packed', first);
    git(repo, 'update-ref', 'refs/orca/wip/r1/t1', first);
    git(repo, 'pack-refs', '--all');
    git(repo, 'branch', 'orca/r1/t1', second);
    git(repo, 'branch', 'orcas-own', second); // a name that merely begins alike stays
    git(repo, 'symbolic-ref', 'refs/heads/alias', 'refs/heads/orca/r1/t1');
    const refs = RefFiles.open(repo)!;
    const everything = refs.list(['refs/']);
    expect(everything.get('refs/heads/orca/r1/packed')).toBe(first);
    const listed = refs.list(['refs/'], ['refs/heads/orca/', 'refs/orca/']);
    const expected = new Map([...everything].filter(([name]) => !name.startsWith('refs/heads/orca/') && !name.startsWith('refs/orca/')));
    expect(listed).toEqual(expected);
    expect(listed.get('refs/heads/orcas-own')).toBe(second);
    expect(listed.get('refs/heads/alias')).toBe(second);
  });

  it('reads a detached HEAD', () => {
    const repo = makeRepo();
    const first = git(repo, 'rev-parse', 'HEAD');
    commitFiles(repo, { 'c.txt': 'c\n' }, 'second');
    git(repo, 'checkout', '-q', '--detach', first);
    const refs = RefFiles.open(repo)!;
    expect(refs.head()).toEqual({ kind: 'oid', oid: first });
    expect(refs.resolve('HEAD')).toBe(first);
  });

  it("reads a linked worktree's own HEAD and per-worktree refs, and the shared refs of the common folder", () => {
    const repo = makeRepo();
    const first = git(repo, 'rev-parse', 'HEAD');
    const second = commitFiles(repo, { 'd.txt': 'd\n' }, 'second');
    const dir = path.join(tempDir('orca-refs-wt-'), 'wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'task', dir, first);
    git(dir, 'update-ref', 'refs/worktree/mine', second);
    git(repo, 'pack-refs', '--all');
    const refs = RefFiles.open(dir)!;
    expect(refs.gitDir).toBe(path.join(repo, '.git', 'worktrees', 'wt'));
    expect(refs.commonDir).toBe(path.join(repo, '.git'));
    expect(refs.head()).toEqual({ kind: 'symbolic', target: 'refs/heads/task' });
    expect(refs.resolve('HEAD')).toBe(first);
    expect(refs.resolve('refs/worktree/mine')).toBe(second);
    // The main checkout's HEAD is its own, and the per-worktree ref is not its.
    const main = RefFiles.open(repo)!;
    expect(main.resolve('HEAD')).toBe(second);
    expect(main.resolve('refs/worktree/mine')).toBeUndefined();
    expect(main.resolve('worktrees/wt/HEAD')).toBe(first);
    expect(refs.resolve('main-worktree/HEAD')).toBe(second);
    expect(refs.list(['refs/heads/', 'refs/tags/'])).toEqual(gitRefs(dir));
  });

  it('has nothing to read where there is no .git', () => {
    expect(RefFiles.open(tempDir('orca-refs-none-'))).toBeUndefined();
  });

  it('reads an unborn branch as missing', () => {
    const dir = tempDir('orca-refs-unborn-');
    git(dir, 'init', '-q', '-b', 'main');
    const refs = RefFiles.open(dir)!;
    expect(refs.head()).toEqual({ kind: 'symbolic', target: 'refs/heads/main' });
    expect(refs.resolve('HEAD')).toBeUndefined();
    expect(refs.list(['refs/heads/'])).toEqual(new Map());
  });
});
