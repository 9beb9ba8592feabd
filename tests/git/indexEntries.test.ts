import { execFileSync } from 'node:child_process';
import { chmodSync, readFileSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type IndexEntry, parseIndex, readIndexEntries as readEntries } from '../../shared/core/git/indexEntries.js';
import { treeSnapshot } from '../../shared/infra/verify/evidence/treeHash.js';
import { git, makeRepo, writeFiles } from '../support/gitRepo.js';
import { tempDir } from '../support/tempDir.js';

/** The entries read from the work tree's index file, or undefined where it hands the reading to git. */
function readIndexEntries(top: string): IndexEntry[] | undefined {
  const entries: IndexEntry[] = [];
  return readEntries(top, (entry) => entries.push(entry)) ? entries : undefined;
}

/** What `git ls-files -z --stage` lists, in the same shape. */
function listedByGit(dir: string): IndexEntry[] {
  const out = execFileSync('git', ['ls-files', '-z', '--stage'], { cwd: dir, encoding: 'utf8' });
  return out
    .split('\0')
    .filter((line) => line !== '')
    .map((line) => {
      const tab = line.indexOf('\t');
      const stageAt = line.lastIndexOf(' ', tab);
      return { path: line.slice(tab + 1), entry: line.slice(0, stageAt), stage: Number(line.slice(stageAt + 1, tab)) };
    });
}

/** A repository with what an index can hold: links, executables, a submodule, long and non-ASCII names, shared prefixes. */
function variedRepo(): string {
  const long = `${'deep/'.repeat(30)}${'n'.repeat(120)}.txt`;
  const dir = makeRepo({
    'README.md': '# r\n',
    'src/a.ts': 'a\n',
    'src/ab.ts': 'ab\n',
    'src/abc/d.ts': 'd\n',
    'src/ünïcødé €.txt': 'u\n',
    [long]: 'long\n',
    'bin/run.sh': 'echo run\n',
  });
  chmodSync(path.join(dir, 'bin/run.sh'), 0o755);
  symlinkSync('src/a.ts', path.join(dir, 'link'));
  git(dir, 'add', '-A');
  git(dir, 'update-index', '--add', '--cacheinfo', `160000,${git(dir, 'rev-parse', 'HEAD')},vendor/sub`);
  git(dir, 'commit', '-q', '-m', 'varied');
  // Extended flags (index version 3): a skip-worktree entry and an intent-to-add one.
  git(dir, 'update-index', '--skip-worktree', 'src/ab.ts');
  writeFiles(dir, { 'later.txt': 'later\n' });
  git(dir, 'add', '-N', 'later.txt');
  return dir;
}

describe('the index read from its file', () => {
  afterEach(() => {
    delete process.env.GIT_INDEX_FILE;
  });

  it('lists what git ls-files --stage lists, in index versions 2, 3 and 4', () => {
    const dir = variedRepo();
    for (const version of ['3', '4', '2']) {
      if (version === '2') {
        // Version 2 has no extended flags: without them the index can be written in it.
        git(dir, 'update-index', '--no-skip-worktree', 'src/ab.ts');
        git(dir, 'rm', '-q', '--cached', 'later.txt');
      }
      git(dir, 'update-index', '--index-version', version);
      const read = readIndexEntries(dir);
      expect(read).toBeDefined();
      expect(read).toEqual(listedByGit(dir));
      expect(read!.length).toBeGreaterThan(8);
    }
  });

  it('reads an index many chunks long, entries across chunk edges, as git lists it (versions 2 and 4)', () => {
    const dir = makeRepo({ 'README.md': '# r\n' });
    const blob = execFileSync('git', ['hash-object', '-w', '--stdin'], { cwd: dir, input: 'x\n', encoding: 'utf8' }).trim();
    const lines = Array.from({ length: 3_000 }, (_, i) => `100644 ${blob}\tpkg-${i % 7}/module-${i}/src/ñame-${'x'.repeat(i % 40)}.ts`);
    execFileSync('git', ['update-index', '--add', '--index-info'], { cwd: dir, input: `${lines.join('\n')}\n` });
    for (const version of ['2', '4']) {
      git(dir, 'update-index', '--index-version', version);
      const read = readIndexEntries(dir);
      expect(read?.length).toBe(3_001);
      expect(read).toEqual(listedByGit(dir));
    }
    expect(readFileSync(path.join(dir, '.git', 'index')).length).toBeGreaterThan(3 * 64 * 1024);
  });

  it('lists every stage of a conflicted file', () => {
    const dir = makeRepo({ 'f.txt': 'base\n' });
    git(dir, 'switch', '-q', '-c', 'other');
    writeFiles(dir, { 'f.txt': 'other\n' });
    git(dir, 'commit', '-q', '-am', 'other');
    git(dir, 'switch', '-q', 'main');
    writeFiles(dir, { 'f.txt': 'main\n' });
    git(dir, 'commit', '-q', '-am', 'main');
    expect(() => git(dir, 'merge', '-q', 'other')).toThrow();
    const read = readIndexEntries(dir);
    expect(read?.map((entry) => entry.stage)).toEqual([1, 2, 3]);
    expect(read).toEqual(listedByGit(dir));
  });

  it("reads a linked worktree's own index through its .git file", () => {
    const repo = makeRepo({ 'README.md': '# r\n', 'src/ünïcødé.txt': 'u\n' });
    const worktree = path.join(tempDir('orca-index-wt-'), 'wt');
    git(repo, 'worktree', 'add', '-q', '--detach', worktree, 'HEAD');
    writeFiles(worktree, { 'only-here.txt': 'x\n' });
    git(worktree, 'add', 'only-here.txt');
    const read = readIndexEntries(worktree);
    expect(read?.some((entry) => entry.path === 'only-here.txt')).toBe(true);
    expect(read).toEqual(listedByGit(worktree));
  });

  it('is not used where git could read it otherwise: a split index, a sparse index, another object format, GIT_INDEX_FILE', () => {
    const split = makeRepo({ 'a.txt': 'a\n' });
    git(split, 'update-index', '--split-index');
    expect(readIndexEntries(split)).toBeUndefined();

    const sparse = makeRepo({ 'in/a.txt': 'a\n', 'out/b.txt': 'b\n' });
    git(sparse, 'sparse-checkout', 'set', '--cone', '--sparse-index', 'in');
    expect(readIndexEntries(sparse)).toBeUndefined();

    const sha256 = tempDir('orca-index-sha256-');
    git(sha256, 'init', '-q', '--object-format=sha256');
    writeFiles(sha256, { 'a.txt': 'a\n' });
    git(sha256, 'add', 'a.txt');
    expect(readIndexEntries(sha256)).toBeUndefined();

    const plain = makeRepo({ 'a.txt': 'a\n' });
    expect(readIndexEntries(plain)).toBeDefined();
    process.env.GIT_INDEX_FILE = path.join(plain, '.git', 'index');
    expect(readIndexEntries(plain)).toBeUndefined();
  });

  it('is not used when its bytes do not check out: torn, or changed after git wrote them', () => {
    const dir = makeRepo({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    const index = path.join(dir, '.git', 'index');
    const bytes = readFileSync(index);
    expect(parseIndex(bytes)).toBeDefined();
    const changed = Buffer.from(bytes);
    changed[changed.indexOf('a.txt')] = 'c'.charCodeAt(0);
    expect(parseIndex(changed)).toBeUndefined();
    truncateSync(index, bytes.length - 7);
    expect(readIndexEntries(dir)).toBeUndefined();
    writeFileSync(index, 'not an index');
    expect(readIndexEntries(dir)).toBeUndefined();
  });

  it("gives a tree snapshot the same digest as git's listing does", async () => {
    const dir = variedRepo();
    writeFiles(dir, { 'src/a.ts': 'changed\n', 'new.txt': 'new\n' });
    const fromFile = await treeSnapshot(dir);
    // The same index, named in the environment: read by git instead.
    process.env.GIT_INDEX_FILE = path.join(dir, '.git', 'index');
    expect(readIndexEntries(dir)).toBeUndefined();
    const fromGit = await treeSnapshot(dir);
    expect(fromFile.digest).toBe(fromGit.digest);
    expect([...fromFile.files]).toEqual([...fromGit.files]);
  });
});
