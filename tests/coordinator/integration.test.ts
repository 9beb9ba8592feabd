import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { IntegrationBranch } from '../../coordinator/merge/integration.js';
import { IntegrationError } from '../../coordinator/merge/integrationError.js';
import { commitFiles, git, makeRepo } from '../support/gitRepo.js';
import { oldGitBin } from '../support/oldGit.js';
import { tempDir } from '../support/tempDir.js';

describe('the integration branch', () => {
  it("lists a merge's files against the head before it: a rename names both paths, a moved branch is still refused", async () => {
    const repo = makeRepo({ 'old.txt': 'kept\n', 'b.txt': 'b\n' });
    const base = git(repo, 'rev-parse', 'HEAD');
    git(repo, 'checkout', '-q', '-b', 'orca/r/rename', base);
    git(repo, 'mv', 'old.txt', 'new.txt');
    git(repo, 'commit', '-q', '-m', 'rename');
    git(repo, 'checkout', '-q', '-b', 'orca/r/edit', base);
    commitFiles(repo, { 'b.txt': 'b edited\n' }, 'orca/r/edit');
    git(repo, 'checkout', '-q', 'main');
    const integration = new IntegrationBranch(repo, 'r', path.join(tempDir(), 'integration'));
    await integration.open(base);
    const renamed = await integration.merge('orca/r/rename', 'merge rename');
    expect(renamed).toMatchObject({ kind: 'merged', files: ['new.txt', 'old.txt'] });
    expect(renamed.kind === 'merged' && renamed.commit).toBe(git(repo, 'rev-parse', 'orca/r/integration'));
    // Someone else moves the branch: the next merge is refused, naming the ref.
    git(repo, 'update-ref', 'refs/heads/orca/r/integration', base);
    await expect(integration.merge('orca/r/edit', 'merge edit')).rejects.toBeInstanceOf(IntegrationError);
    expect(git(repo, 'rev-parse', 'orca/r/integration')).toBe(base);
  });

  it('merges task branches with --no-ff, and aborts a conflicting merge leaving the branch as it was', async () => {
    const repo = makeRepo({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    const base = git(repo, 'rev-parse', 'HEAD');
    for (const [branch, file, content] of [
      ['orca/r/t1', 'a.txt', 'a from t1\n'],
      ['orca/r/t2', 'b.txt', 'b from t2\n'],
      ['orca/r/t3', 'a.txt', 'a from t3\n'],
    ] as const) {
      git(repo, 'checkout', '-q', '-b', branch, base);
      commitFiles(repo, { [file]: content }, branch);
    }
    git(repo, 'checkout', '-q', 'main');
    const integration = new IntegrationBranch(repo, 'r', path.join(tempDir(), 'integration'));
    expect(await integration.open(base)).toBe(base);

    const [m1, m2] = await Promise.all([integration.merge('orca/r/t1', 'merge t1'), integration.merge('orca/r/t2', 'merge t2')]);
    expect(m1.kind).toBe('merged');
    expect(m2).toMatchObject({ kind: 'merged', files: ['b.txt'] });
    const head = await integration.head();
    expect(git(repo, 'rev-list', '--merges', '--count', `${base}..orca/r/integration`)).toBe('2');

    const conflict = await integration.merge('orca/r/t3', 'merge t3');
    expect(conflict).toMatchObject({ kind: 'conflict', files: ['a.txt'] });
    expect(await integration.head()).toBe(head);
    expect(git(integration.dir, 'status', '--porcelain')).toBe('');
    expect(await integration.merge('orca/r/t1', 'again')).toEqual({ kind: 'nothing', commit: head });
    // The head is read from the ref files: a packed ref is found there too.
    git(repo, 'pack-refs', '--all');
    expect(await integration.head()).toBe(head);
  });

  it('is moved only by its own merges: a ref moved by anyone else stops the next merge and every read of the head, naming the ref', async () => {
    const repo = makeRepo({ 'a.txt': 'a\n' });
    const base = git(repo, 'rev-parse', 'HEAD');
    git(repo, 'checkout', '-q', '-b', 'orca/r/t1', base);
    commitFiles(repo, { 'a.txt': 'a from t1\n' }, 't1');
    git(repo, 'checkout', '-q', '-b', 'evil', base);
    const planted = commitFiles(repo, { 'EVIL.txt': 'x\n', '.claude/settings.local.json': '{}' }, 'planted');
    git(repo, 'checkout', '-q', 'main');
    const integration = new IntegrationBranch(repo, 'r', path.join(tempDir(), 'integration'));
    await integration.open(base);
    // The worktree is detached: the branch is checked out nowhere, and moves only by compare-and-swap.
    expect(git(integration.dir, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('HEAD');

    git(repo, 'update-ref', 'refs/heads/orca/r/integration', planted);
    const moved = await integration.merge('orca/r/t1', 'merge t1').catch((error: unknown) => error);
    expect(moved).toBeInstanceOf(IntegrationError);
    expect(moved).toMatchObject({ kind: 'ref_moved', ref: 'refs/heads/orca/r/integration' });
    expect((moved as Error).message).toContain(`recorded ${base.slice(0, 12)} and it is at ${planted.slice(0, 12)}`);
    await expect(integration.head()).rejects.toThrow(/moved under the run/);
    // Nothing was merged on top of the planted commit, and the worktree is still at the recorded head.
    expect(git(repo, 'rev-parse', 'orca/r/integration')).toBe(planted);
    expect(git(integration.dir, 'rev-parse', 'HEAD')).toBe(base);
  });

  it('refuses to reopen on resume when the branch is not at the head the run recorded', async () => {
    const repo = makeRepo({ 'a.txt': 'a\n' });
    const base = git(repo, 'rev-parse', 'HEAD');
    const other = commitFiles(repo, { 'b.txt': 'b\n' }, 'other');
    git(repo, 'branch', 'orca/r/integration', other);
    const integration = new IntegrationBranch(repo, 'r', path.join(tempDir(), 'integration'));
    await expect(integration.open(base, base)).rejects.toMatchObject({ kind: 'ref_moved' });
  });

  it('merges without reading its worktree: what a check left there never reaches the branch, and the worktree is put back at the head when next used', async () => {
    const repo = makeRepo({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    const base = git(repo, 'rev-parse', 'HEAD');
    for (const task of ['t1', 't2']) {
      git(repo, 'checkout', '-q', '-b', `orca/r/${task}`, base);
      commitFiles(repo, { [`${task}.txt`]: `${task}\n` }, task);
    }
    git(repo, 'checkout', '-q', 'main');
    const folder = path.join(tempDir(), 'integration');
    const integration = new IntegrationBranch(repo, 'r', folder, { agentsConfined: true });
    await integration.open(base);
    // Given out (the integration checks run there): a commit of its own, changed and untracked files.
    const lent = integration.dir;
    writeFileSync(path.join(lent, 'a.txt'), 'changed by a check\n');
    commitFiles(lent, { 'planted.txt': 'x\n' }, 'planted');
    writeFileSync(path.join(lent, 'b.txt'), 'changed by a check\n');
    writeFileSync(path.join(lent, 'build.out'), 'output\n');
    const m1 = await integration.merge('orca/r/t1', 'merge t1');
    const m2 = await integration.merge('orca/r/t2', 'merge t2');
    expect([m1.kind, m2.kind]).toEqual(['merged', 'merged']);
    const merged = git(repo, 'ls-tree', '-r', '--name-only', 'orca/r/integration').split('\n');
    expect(merged).toEqual(['a.txt', 'b.txt', 't1.txt', 't2.txt']);
    expect(git(repo, 'show', 'orca/r/integration:a.txt')).toBe('a');
    expect(git(repo, 'rev-list', '--merges', '--count', `${base}..orca/r/integration`)).toBe('2');
    // The merges left the worktree alone; its next user gets it at the head, tracked files as
    // committed, the check's untracked output kept.
    expect(readFileSync(path.join(folder, 'b.txt'), 'utf8')).toBe('changed by a check\n');
    expect(await integration.checkedOut()).toBe(folder);
    expect(git(folder, 'rev-parse', 'HEAD')).toBe(await integration.head());
    expect(git(folder, 'status', '--porcelain', '--untracked-files=no')).toBe('');
    expect(readFileSync(path.join(folder, 'build.out'), 'utf8')).toBe('output\n');
  });

  it('puts its worktree back only when it may differ from the head: not when nobody was given it, always when agents run unsandboxed', async () => {
    const repo = makeRepo({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    const base = git(repo, 'rev-parse', 'HEAD');
    git(repo, 'checkout', '-q', '-b', 'orca/r/t1', base);
    commitFiles(repo, { 't1.txt': 't1\n' }, 't1');
    git(repo, 'checkout', '-q', 'main');
    // Sandboxed agents, nobody given the worktree since it opened: a change made behind the class's back stays.
    const folder = path.join(tempDir(), 'integration');
    const confined = new IntegrationBranch(repo, 'r', folder, { agentsConfined: true });
    await confined.open(base);
    writeFileSync(path.join(folder, 'b.txt'), 'not reset\n');
    expect(await confined.checkedOut()).toBe(folder);
    expect(readFileSync(path.join(folder, 'b.txt'), 'utf8')).toBe('not reset\n');
    // Given out by that call: the next one puts it back.
    await confined.checkedOut();
    expect(readFileSync(path.join(folder, 'b.txt'), 'utf8')).toBe('b\n');
    await confined.close();
    git(repo, 'branch', '-D', 'orca/r/integration');

    // Unsandboxed agents could reach the folder without being given it: always put back.
    const behind = path.join(tempDir(), 'integration');
    const open = new IntegrationBranch(repo, 'r', behind, { agentsConfined: false });
    await open.open(base);
    writeFileSync(path.join(behind, 'b.txt'), 'reset\n');
    expect((await open.merge('orca/r/t1', 'merge t1')).kind).toBe('merged');
    await open.checkedOut();
    expect(readFileSync(path.join(behind, 'b.txt'), 'utf8')).toBe('b\n');
    expect(git(behind, 'show', 'HEAD:t1.txt')).toBe('t1');
  });

  it('merges in its worktree where git has no merge-tree --write-tree (before 2.38), with the same outcomes', async () => {
    const repo = makeRepo({ 'a.txt': 'a\n' });
    const base = git(repo, 'rev-parse', 'HEAD');
    for (const [task, content] of [
      ['t1', 'a from t1\n'],
      ['t2', 'a from t2\n'],
    ] as const) {
      git(repo, 'checkout', '-q', '-b', `orca/r/${task}`, base);
      commitFiles(repo, { 'a.txt': content }, task);
    }
    git(repo, 'checkout', '-q', 'main');
    // A git that answers `merge-tree --write-tree` as one before 2.38 does: a usage error.
    const bin = oldGitBin('--write-tree', 'usage: git merge-tree <base-tree> <branch1> <branch2>');
    const saved = process.env.PATH;
    process.env.PATH = `${bin}:${saved}`;
    try {
      const folder = path.join(tempDir(), 'integration');
      const integration = new IntegrationBranch(repo, 'r', folder, { agentsConfined: true });
      await integration.open(base);
      const merged = await integration.merge('orca/r/t1', 'merge t1');
      expect(merged).toMatchObject({ kind: 'merged', files: ['a.txt'] });
      expect(git(repo, 'rev-parse', 'orca/r/integration')).toBe(merged.kind === 'merged' ? merged.commit : '');
      // Made in the worktree: its HEAD is the merge (a merge from the objects leaves it at the base).
      expect(git(folder, 'rev-parse', 'HEAD')).toBe(merged.kind === 'merged' ? merged.commit : '');
      expect(await integration.merge('orca/r/t2', 'merge t2')).toMatchObject({ kind: 'conflict', files: ['a.txt'] });
      expect(await integration.merge('orca/r/t1', 'again')).toMatchObject({ kind: 'nothing' });
      expect(git(await integration.checkedOut(), 'show', 'HEAD:a.txt')).toBe('a from t1');
    } finally {
      process.env.PATH = saved;
    }
  });
});
