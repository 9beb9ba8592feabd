import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitAll } from '../../shared/core/git/commit.js';
import { readOrcaProjectConfig } from '../../shared/core/git/orcaProjectConfig.js';
import { checkOutSparse, sparseSelection } from '../../shared/core/git/sparseCheckout.js';
import { placeStartFiles } from '../../shared/core/git/startFiles.js';
import { addWorktree } from '../../shared/core/git/worktree.js';
import { changedStartFiles, readStartState } from '../../shared/core/git/worktreeStartState.js';
import { commitFiles, git, makeRepo, writeFiles } from '../support/gitRepo.js';
import { tempDir } from '../support/tempDir.js';

describe('a new worktree’s start files', () => {
  it('copies only the ignored files .worktreeinclude names, writes .env.orca, and commits none of them', async () => {
    const repo = makeRepo({
      '.gitignore': '.env*\nconfig/local/\nbuild/\nnode_modules/\n',
      '.worktreeinclude': '.env.test\nconfig/local/*.json\nREADME.md\n',
      'README.md': '# tracked\n',
      'src/app.ts': 'export {};\n',
    });
    writeFiles(repo, {
      '.env.test': 'API_URL=http://localhost:4000\n',
      '.env.production': 'SECRET=never-copied\n',
      'config/local/db.json': '{"port": 5432}\n',
      'config/local/notes.txt': 'not named\n',
      'build/out.js': 'ignored, not named\n',
      'node_modules/dep/.env.test': 'inside a linked folder: never searched\n',
    });
    const dir = path.join(tempDir('orca-wt-'), 'task');
    const base = git(repo, 'rev-parse', 'HEAD');
    await addWorktree({ repo, dir, base, branch: 'task' });
    const entries = await placeStartFiles({
      repo,
      checkout: repo,
      dir,
      symlinkDirectories: ['node_modules'],
      env: { runId: 'r1', taskId: 't1', ports: [4100, 4101] },
    });
    expect(entries.map((entry) => [entry.path, entry.kind]).sort()).toEqual([
      ['.env.orca', 'env'],
      ['.env.test', 'included'],
      ['config/local/db.json', 'included'],
      ['node_modules', 'linked'],
    ]);
    expect(readFileSync(path.join(dir, '.env.test'), 'utf8')).toBe('API_URL=http://localhost:4000\n');
    expect(readFileSync(path.join(dir, '.env.orca'), 'utf8')).toMatch(
      /^ORCA_PORTS=4100,4101\nPORT=4100\nORCA_RUN_ID=r1\nORCA_TASK_ID=t1\n$/m,
    );
    expect(readStartState(dir)).toEqual(entries);
    // node_modules is a folder of links (./dependencyLinks.test.ts), which the project's `node_modules/` rule hides; the agent's commit takes its own change only.
    expect(git(dir, 'status', '--porcelain')).toBe('');
    writeFileSync(path.join(dir, 'src/app.ts'), 'export const x = 1;\n');
    const commit = await commitAll(dir, 'the agent’s change');
    expect(git(dir, 'show', '--name-only', '--format=', commit!)).toBe('src/app.ts');
    // Even where no ignore rule covers them, orca's own files stay out of commits.
    writeFileSync(path.join(repo, '.git', 'info', 'exclude'), '');
    git(dir, 'config', 'core.excludesFile', '/dev/null');
    writeFileSync(path.join(dir, 'src/app.ts'), 'export const x = 2;\n');
    const second = await commitAll(dir, 'again');
    expect(git(dir, 'show', '--name-only', '--format=', second!)).toBe('src/app.ts');
    // A change to a start file is seen by its hash.
    expect(changedStartFiles(dir)).toEqual([]);
    writeFileSync(path.join(dir, '.env.test'), 'API_URL=http://evil\n');
    expect(changedStartFiles(dir).map((entry) => entry.path)).toEqual(['.env.test']);
  });

  it('links the folders orca.json names, nested ones too', async () => {
    const repo = makeRepo({ '.gitignore': '.venv/\n', 'app/main.py': 'print(1)\n' });
    mkdirSync(path.join(repo, '.venv/bin'), { recursive: true });
    writeFiles(repo, { 'web/node_modules/dep/index.js': 'module.exports = 1;\n' });
    const dir = path.join(tempDir('orca-wt-'), 'task');
    await addWorktree({ repo, dir, base: git(repo, 'rev-parse', 'HEAD'), branch: 'task' });
    const entries = await placeStartFiles({ repo, checkout: repo, dir, symlinkDirectories: ['.venv', 'web/node_modules'] });
    expect(entries.map((entry) => entry.path)).toEqual(['.venv', 'web/node_modules']);
    // A link is no folder to git, so `.venv/` rules do not hide it, and no rule hides web/node_modules here: both are kept out of commits by the start state.
    expect(git(dir, 'status', '--porcelain', '--untracked-files=all')).toBe('?? .venv\n?? web/node_modules/dep');
    writeFileSync(path.join(dir, 'app/main.py'), 'print(2)\n');
    const commit = await commitAll(dir, 'change');
    expect(git(dir, 'show', '--name-only', '--format=', commit!)).toBe('app/main.py');
  });

  it('checks out sparsely the owned folder, the paths the checks name and sparsePaths; the commit still works', async () => {
    const files: Record<string, string> = { 'package.json': '{}\n', 'orca.json': '{"sparsePaths": ["shared"]}\n' };
    for (const pkg of ['a', 'b', 'c', 'shared']) for (const n of [1, 2]) files[`${pkg}/src/f${n}.ts`] = `export const n = ${n};\n`;
    files['tests/b.test.mjs'] = 'test\n';
    files['tests/other.test.mjs'] = 'test\n';
    const repo = makeRepo(files);
    const base = git(repo, 'rev-parse', 'HEAD');
    const config = await readOrcaProjectConfig(repo, base);
    const folders = await sparseSelection(repo, base, {
      sparsePaths: config.sparsePaths!,
      owned: ['a', 'c/src/f1.ts', 'new-folder/**/*.ts'],
      checks: ['node --test tests/b.test.mjs', 'npm run lint -- --fix'],
    });
    expect(folders).toEqual(['a', 'c/src', 'new-folder', 'shared', 'tests']);
    const dir = path.join(tempDir('orca-wt-'), 'task');
    await addWorktree({ repo, dir, base, branch: 'task', noCheckout: true });
    await checkOutSparse(dir, ['a', 'shared']);
    const present = git(dir, 'ls-files', '-t').split('\n');
    expect(present.filter((line) => line.startsWith('H ')).map((line) => line.slice(2))).toEqual([
      'a/src/f1.ts',
      'a/src/f2.ts',
      'orca.json',
      'package.json',
      'shared/src/f1.ts',
      'shared/src/f2.ts',
    ]);
    expect(git(dir, 'status', '--porcelain')).toBe('');
    writeFileSync(path.join(dir, 'a/src/f3.ts'), 'export {};\n');
    const commit = await commitAll(dir, 'add f3');
    expect(git(repo, 'show', '--name-only', '--format=', commit!)).toBe('a/src/f3.ts');
    // The commit's tree is the whole tree: what is not checked out is kept, not deleted.
    expect(git(repo, 'ls-tree', '-r', '--name-only', commit!).split('\n')).toContain('b/src/f1.ts');
  });

  it('reads orca.json from the base commit, never from the checkout, and names a bad field', async () => {
    const repo = makeRepo({ 'orca.json': '{"setup": ["node scripts/gen.mjs"]}\n' });
    const base = git(repo, 'rev-parse', 'HEAD');
    writeFileSync(path.join(repo, 'orca.json'), '{"setup": ["rm -rf /"]}\n');
    expect((await readOrcaProjectConfig(repo, base)).setup).toEqual(['node scripts/gen.mjs']);
    const bad = commitFiles(repo, { 'orca.json': '{"setup": "node gen.mjs", "sparsepaths": []}\n' }, 'bad');
    await expect(readOrcaProjectConfig(repo, bad)).rejects.toThrow(/orca.json at [0-9a-f]{12} is invalid: .*setup.*sparsepaths/);
    const none = makeRepo();
    expect(await readOrcaProjectConfig(none, git(none, 'rev-parse', 'HEAD'))).toEqual({
      setup: [],
      setupTimeoutSeconds: 600,
      symlinkDirectories: ['node_modules'],
    });
  });
});
