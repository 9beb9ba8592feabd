import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readFreshWorktreeSnapshot, readGitSnapshot, snapshotFromWatchStatus } from '../../shared/context/prompt/gitSnapshot.js';
import { addWorktree } from '../../shared/core/git/worktree.js';
import { lookAndStatus } from '../../shared/policy/permissions/worktreeChanges.js';
import { commitFiles, git, makeRepo, writeFiles } from '../support/gitRepo.js';
import { tempDir } from '../support/tempDir.js';

/** What `git status --short` prints (untrimmed: a line may start with a space), the form the snapshot's status lines take. */
function shortStatus(dir: string): string[] {
  return execFileSync('git', ['status', '--porcelain=v1', '--untracked-files=normal'], { cwd: dir, encoding: 'utf8' })
    .split('\n')
    .filter(Boolean);
}

describe('the git snapshot in the prompt', () => {
  it('names branch and HEAD, and gives the status as `git status --short` does: modified, staged, renamed, deleted, untracked', async () => {
    const repo = makeRepo({ 'a.txt': 'a\n', 'b.txt': 'b\n', 'gone.txt': 'gone\n', 'old.txt': 'moved\n' });
    const head = git(repo, 'rev-parse', 'HEAD');
    writeFileSync(path.join(repo, 'a.txt'), 'changed\n');
    writeFileSync(path.join(repo, 'b.txt'), 'staged\n');
    git(repo, 'add', 'b.txt');
    writeFileSync(path.join(repo, 'b.txt'), 'staged, then changed again\n');
    git(repo, 'mv', 'old.txt', 'new.txt');
    rmSync(path.join(repo, 'gone.txt'));
    writeFileSync(path.join(repo, 'added.txt'), 'new\n');
    mkdirSync(path.join(repo, 'dir'));
    writeFileSync(path.join(repo, 'dir', 'inside.txt'), 'inside\n');

    const status = [' M a.txt', 'MM b.txt', ' D gone.txt', 'R  old.txt -> new.txt', '?? added.txt', '?? dir/'];
    expect(shortStatus(repo).sort()).toEqual([...status].sort());
    const snapshot = await readGitSnapshot(repo);
    expect(snapshot).toMatchObject({ kind: 'repo', branch: 'main', head: head.slice(0, 12) });
    expect(snapshot.kind === 'repo' && [...snapshot.status].sort()).toEqual([...status].sort());
  });

  it('keeps a name with spaces whole (unquoted, as porcelain v2 gives it)', async () => {
    const repo = makeRepo({ 'old name.txt': 'moved\n' });
    git(repo, 'mv', 'old name.txt', 'new name.txt');
    writeFileSync(path.join(repo, 'new file.txt'), 'new\n');
    expect(await readGitSnapshot(repo)).toMatchObject({ status: ['R  old name.txt -> new name.txt', '?? new file.txt'] });
  });

  it('says when HEAD is detached, when there is no commit yet, and when there is no repository', async () => {
    const repo = makeRepo();
    const first = git(repo, 'rev-parse', 'HEAD');
    commitFiles(repo, { 'later.txt': 'later\n' }, 'later');
    git(repo, 'checkout', '-q', '--detach', first);
    expect(await readGitSnapshot(repo)).toEqual({ kind: 'repo', branch: 'HEAD (no branch)', head: first.slice(0, 12), status: [] });

    const empty = tempDir('orca-empty-');
    git(empty, 'init', '-q', '-b', 'trunk');
    writeFileSync(path.join(empty, 'x.txt'), 'x\n');
    expect(await readGitSnapshot(empty)).toEqual({ kind: 'repo', branch: 'trunk', head: '(no commits yet)', status: ['?? x.txt'] });

    expect(await readGitSnapshot(tempDir('orca-plain-'))).toEqual({ kind: 'none', reason: 'not a git repository' });
  });

  it('of a worktree checked out a moment ago, asks only about what orca linked in, and agrees with the full one', async () => {
    const repo = makeRepo({ 'a.txt': 'a\n' });
    const base = git(repo, 'rev-parse', 'HEAD');
    const dir = path.join(tempDir('orca-wt-'), 't1');
    await addWorktree({ repo, dir, base, branch: 'orca/r1/t1' });
    symlinkSync(tempDir('orca-modules-'), path.join(dir, 'node_modules'), 'dir');

    const fresh = await readFreshWorktreeSnapshot(dir, 'orca/r1/t1', base, ['node_modules']);
    expect(fresh).toEqual(await readGitSnapshot(dir));
    expect(fresh).toEqual({ kind: 'repo', branch: 'orca/r1/t1', head: base.slice(0, 12), status: ['?? node_modules'] });
    expect(await readFreshWorktreeSnapshot(dir, 'orca/r1/t1', base, [])).toEqual({
      kind: 'repo',
      branch: 'orca/r1/t1',
      head: base.slice(0, 12),
      status: [],
    });
  });

  it("read from the watch's look, says what its own status says: ignored files left out, a folder untracked at the start shown whole", async () => {
    const repo = makeRepo({ 'a.txt': 'a\n', 'b.txt': 'b\n', 'gone.txt': 'gone\n', '.gitignore': '*.log\n' });
    const head = git(repo, 'rev-parse', 'HEAD');
    writeFiles(repo, { 'build/out.js': 'out\n' });
    const start = await readGitSnapshot(repo);
    expect(start.kind === 'repo' && start.status).toEqual(['?? build/']);
    writeFileSync(path.join(repo, 'a.txt'), 'changed\n');
    writeFileSync(path.join(repo, 'b.txt'), 'staged\n');
    git(repo, 'add', 'b.txt');
    writeFileSync(path.join(repo, 'b.txt'), 'staged, then changed again\n');
    rmSync(path.join(repo, 'gone.txt'));
    writeFiles(repo, { 'added.txt': 'new\n', 'build/more.js': 'more\n', 'fresh/x.txt': 'x\n', 'debug.log': 'l\n' });

    const own = await readGitSnapshot(repo);
    const look = await lookAndStatus(repo, head, [], { ignored: true });
    expect(look.status).toContain('! debug.log');
    const fromLook = snapshotFromWatchStatus(look.status, start);
    expect(own).toEqual({
      kind: 'repo',
      branch: 'main',
      head: head.slice(0, 12),
      status: [' M a.txt', 'MM b.txt', ' D gone.txt', '?? added.txt', '?? build/', '?? fresh/'],
    });
    // A folder new since the start is named file by file (git's own status would name the folder).
    expect(fromLook).toEqual({ ...own, status: [' M a.txt', 'MM b.txt', ' D gone.txt', '?? added.txt', '?? build/', '?? fresh/x.txt'] });
    // Nothing changed: the look's snapshot is the start's, so the reminder says nothing.
    const clean = makeRepo({ 'a.txt': 'a\n' });
    writeFiles(clean, { 'build/out.js': 'out\n' });
    const cleanStart = await readGitSnapshot(clean);
    const cleanLook = await lookAndStatus(clean, git(clean, 'rev-parse', 'HEAD'), [], { ignored: true });
    expect(snapshotFromWatchStatus(cleanLook.status, cleanStart)).toEqual(cleanStart);
  });
});
