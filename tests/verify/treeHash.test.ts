import { chmodSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeTreeChanges, loadManifest, saveManifest, treeChanges, treeSnapshot } from '../../shared/infra/verify/evidence/treeHash.js';
import { lookAndStatus } from '../../shared/policy/permissions/worktreeChanges.js';
import { git, makeRepo } from '../support/gitRepo.js';
import { tempDir } from '../support/tempDir.js';

function repo(): string {
  return makeRepo({ '.gitignore': 'node_modules/\ndist/\n', 'src/a.ts': 'export const a = 1;\n', 'README.md': '# r\n' });
}

describe('tree hash', () => {
  it('is the same for the same files, and changes when a tracked file changes (same size too)', async () => {
    const dir = repo();
    const first = await treeSnapshot(dir);
    expect((await treeSnapshot(dir)).digest).toBe(first.digest);
    writeFileSync(path.join(dir, 'src/a.ts'), 'export const a = 2;\n');
    const edited = await treeSnapshot(dir);
    expect(edited.digest).not.toBe(first.digest);
    expect(treeChanges(first.files, edited.files)).toEqual([{ path: 'src/a.ts', change: 'changed' }]);
    // Same-size edits in quick succession (one clock tick apart at most) are each seen.
    let previous = edited.digest;
    for (const digit of [3, 4, 5, 6, 7]) {
      writeFileSync(path.join(dir, 'src/a.ts'), `export const a = ${digit};\n`);
      const next = (await treeSnapshot(dir)).digest;
      expect(next).not.toBe(previous);
      previous = next;
    }
  });

  it('changes when an untracked file appears, a tracked one is deleted, or a file becomes executable', async () => {
    const dir = repo();
    const before = await treeSnapshot(dir);
    writeFileSync(path.join(dir, 'notes.txt'), 'new\n');
    const added = await treeSnapshot(dir);
    expect(added.digest).not.toBe(before.digest);
    expect(treeChanges(before.files, added.files)).toEqual([{ path: 'notes.txt', change: 'added' }]);

    rmSync(path.join(dir, 'README.md'));
    const removed = await treeSnapshot(dir);
    expect(treeChanges(added.files, removed.files)).toEqual([{ path: 'README.md', change: 'removed' }]);

    chmodSync(path.join(dir, 'src/a.ts'), 0o755);
    const executable = await treeSnapshot(dir);
    expect(executable.digest).not.toBe(removed.digest);
    expect(treeChanges(removed.files, executable.files)).toEqual([{ path: 'src/a.ts', change: 'changed' }]);
  });

  it('ignores ignored files (node_modules, build output)', async () => {
    const dir = repo();
    const before = await treeSnapshot(dir);
    mkdirSync(path.join(dir, 'node_modules/x'), { recursive: true });
    writeFileSync(path.join(dir, 'node_modules/x/index.js'), 'module.exports = 1;\n');
    mkdirSync(path.join(dir, 'dist'));
    writeFileSync(path.join(dir, 'dist/a.js'), 'compiled\n');
    expect((await treeSnapshot(dir)).digest).toBe(before.digest);
  });

  it('does not care whether a change is committed: a worktree hashed before its commit equals the commit', async () => {
    const dir = repo();
    writeFileSync(path.join(dir, 'src/b.ts'), 'export const b = 1;\n');
    writeFileSync(path.join(dir, 'src/a.ts'), 'export const a = 3;\n');
    const uncommitted = await treeSnapshot(dir);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'b');
    expect((await treeSnapshot(dir)).digest).toBe(uncommitted.digest);
  });

  it('hashes the whole repository from a subfolder', async () => {
    const dir = repo();
    expect((await treeSnapshot(path.join(dir, 'src'))).digest).toBe((await treeSnapshot(dir)).digest);
  });

  it('gives a changed file, a new link and a new executable the very mode and blob id git gives them', async () => {
    const dir = repo();
    writeFileSync(path.join(dir, 'src/a.ts'), 'export const a = 42;\n');
    symlinkSync('src/a.ts', path.join(dir, 'link.ts'));
    writeFileSync(path.join(dir, 'run.sh'), '#!/bin/sh\necho hi\n');
    chmodSync(path.join(dir, 'run.sh'), 0o755);
    const snapshot = await treeSnapshot(dir);
    git(dir, 'add', '-A');
    for (const file of ['src/a.ts', 'link.ts', 'run.sh']) {
      const [mode, blob] = git(dir, 'ls-files', '-s', file).split(/\s+/);
      expect(snapshot.files.get(file)).toBe(`${mode} ${blob}`);
    }
  });

  it('names what changed from a saved listing', async () => {
    const dir = repo();
    const before = await treeSnapshot(dir);
    const manifest = path.join(tempDir(), 'tree.txt');
    await saveManifest(before, manifest);
    writeFileSync(path.join(dir, 'src/a.ts'), 'changed\n');
    writeFileSync(path.join(dir, 'new.ts'), 'x\n');
    const changes = treeChanges(await loadManifest(manifest), (await treeSnapshot(dir)).files);
    expect(describeTreeChanges(changes)).toBe('new.ts (added), src/a.ts (changed)');
  });

  it("is the same from the host watch's look as from its own status: edits, staged ones, deletions, new files, ignored ones, a nested repository", async () => {
    const dir = repo();
    const start = git(dir, 'rev-parse', 'HEAD');
    writeFileSync(path.join(dir, 'src/a.ts'), 'export const a = 2;\n');
    writeFileSync(path.join(dir, 'README.md'), '# staged\n');
    git(dir, 'add', 'README.md');
    writeFileSync(path.join(dir, 'src/b.ts'), 'export const b = 1;\n');
    git(dir, 'add', 'src/b.ts');
    writeFileSync(path.join(dir, 'src/b.ts'), 'export const b = 2;\n');
    rmSync(path.join(dir, '.gitignore'));
    mkdirSync(path.join(dir, 'dist'));
    writeFileSync(path.join(dir, 'dist/out.js'), 'out\n');
    writeFileSync(path.join(dir, 'new file.txt'), 'new\n');
    makeRepoAt(path.join(dir, 'nested'));
    const look = await lookAndStatus(dir, start, [], { ignored: true });
    const own = await treeSnapshot(dir);
    expect((await treeSnapshot(dir, { statusV2: look.status })).files).toEqual(own.files);
    expect((await treeSnapshot(dir, { statusV2: look.status })).digest).toBe(own.digest);
    expect(own.files.get('new file.txt')).toMatch(/^100644 /);
  });

  it('refuses a folder outside git, saying so', async () => {
    await expect(treeSnapshot(tempDir())).rejects.toThrow(/cannot hash the tree at .*not a git repository/);
  });
});

/** A repository of its own inside another's work tree. */
function makeRepoAt(dir: string): void {
  mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q', '-b', 'main');
  writeFileSync(path.join(dir, 'x.txt'), 'x\n');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'nested');
}
