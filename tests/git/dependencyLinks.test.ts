import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitAll } from '../../shared/core/git/commit.js';
import { placeStartFiles } from '../../shared/core/git/startFiles.js';
import { addWorktree } from '../../shared/core/git/worktree.js';
import { readOnlyDependencyNote } from '../../shared/core/runtime/readOnlyDependencies.js';
import { sandboxPolicy } from '../../shared/core/sandbox/agentPolicy.js';
import { bwrapWrap, findOnPath } from '../../shared/core/sandbox/bwrap.js';
import { runCheck } from '../../shared/infra/verify/checks/checkRun.js';
import { makeBashTool } from '../../shared/tools/bash.js';
import { git, makeRepo, writeFiles } from '../support/gitRepo.js';
import { tempDir } from '../support/tempDir.js';
import { makeToolContext } from '../support/toolContext.js';

/** An npm-workspaces project: `packages/x` and `packages/@acme/y`, whose root tests import both by name. */
const WORKSPACES = {
  'package.json': JSON.stringify({ name: 'mono', private: true, type: 'module', workspaces: ['packages/*', 'packages/@acme/*'] }),
  '.gitignore': 'node_modules/\n',
  'packages/x/package.json': JSON.stringify({ name: 'x', version: '1.0.0', type: 'module', main: 'index.js', bin: { 'x-cli': 'cli.js' } }),
  'packages/x/index.js': 'export const add = (a, b) => a + b;\n',
  'packages/x/cli.js': "#!/usr/bin/env node\nimport { add } from './index.js';\nconsole.log(`x-cli ${add(1, 2)}`);\n",
  'packages/@acme/y/package.json': JSON.stringify({ name: '@acme/y', version: '1.0.0', type: 'module', main: 'index.js' }),
  'packages/@acme/y/index.js': "export const hello = () => 'hello';\n",
  'test/x.test.mjs': [
    "import test from 'node:test';",
    "import assert from 'node:assert/strict';",
    "import { add } from 'x';",
    "import { hello } from '@acme/y';",
    "test('adds', () => assert.equal(add(1, 2), 3));",
    "test('greets', () => assert.equal(hello(), 'hello'));",
    '',
  ].join('\n'),
};

/** The checkout, installed by npm itself (offline: nothing to download, only the workspaces to link), and a worktree of it made ready. */
async function workspacesWorktree(extra: Record<string, string> = {}) {
  const repo = makeRepo({ ...WORKSPACES, ...extra });
  execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: repo, stdio: 'pipe' });
  // An installed (non-workspace) package, as a registry install leaves it: a folder of its own.
  writeFiles(repo, {
    'node_modules/installed/package.json': '{"name":"installed","main":"index.js"}',
    'node_modules/installed/index.js': '',
  });
  const dir = path.join(tempDir('orca-wt-'), 'task');
  await addWorktree({ repo, dir, base: git(repo, 'rev-parse', 'HEAD'), branch: 'task' });
  const entries = await placeStartFiles({ repo, checkout: repo, dir, symlinkDirectories: ['node_modules'] });
  return { repo, dir, entries };
}

function nodeTest(cwd: string): { code: number | null; output: string } {
  const run = spawnSync(process.execPath, ['--test', 'test/'], { cwd, encoding: 'utf8' });
  return { code: run.status, output: `${run.stdout}\n${run.stderr}` };
}

describe('a worktree runs its own code: node_modules linked entry by entry', () => {
  it('an npm-workspaces package resolves to the worktree’s copy, so a break there fails the worktree’s tests and not the checkout’s', async () => {
    const { repo, dir, entries } = await workspacesWorktree();
    expect(entries.map((entry) => [entry.path, entry.kind])).toEqual([['node_modules', 'linked']]);
    // node_modules is the worktree's own folder; the workspace links lead into the worktree, what is installed into the checkout.
    expect(lstatSync(path.join(dir, 'node_modules')).isDirectory()).toBe(true);
    expect(realpathSync(path.join(dir, 'node_modules/x'))).toBe(realpathSync(path.join(dir, 'packages/x')));
    expect(realpathSync(path.join(dir, 'node_modules/@acme/y'))).toBe(realpathSync(path.join(dir, 'packages/@acme/y')));
    expect(realpathSync(path.join(dir, 'node_modules/.bin/x-cli'))).toBe(realpathSync(path.join(dir, 'packages/x/cli.js')));
    expect(realpathSync(path.join(dir, 'node_modules/installed'))).toBe(realpathSync(path.join(repo, 'node_modules/installed')));
    expect(nodeTest(dir).code).toBe(0);

    // The worker breaks packages/x: its tests see the break; the user's checkout is untouched and passes.
    writeFileSync(path.join(dir, 'packages/x/index.js'), 'export const add = (a, b) => a - b;\n');
    const broken = nodeTest(dir);
    expect(broken.code).toBe(1);
    expect(broken.output).toMatch(/# fail 1/);
    expect(nodeTest(repo).code).toBe(0);
    expect(execFileSync(process.execPath, [path.join(dir, 'node_modules/.bin/x-cli')], { encoding: 'utf8' }).trim()).toBe('x-cli -1');
    // The commit takes the change, never the links.
    const commit = await commitAll(dir, 'break x');
    expect(git(dir, 'show', '--name-only', '--format=', commit!)).toBe('packages/x/index.js');
  });

  it('a workspace package’s own node_modules (as pnpm installs them) is found from its package.json and linked the same way', async () => {
    const repo = makeRepo({
      '.gitignore': 'node_modules/\n',
      'package.json': '{"name":"mono","private":true}',
      'packages/a/package.json': '{"name":"a","type":"module"}',
      'packages/a/index.js': "export { b } from 'b';\n",
      'packages/b/package.json': '{"name":"b","type":"module","main":"index.js"}',
      'packages/b/index.js': "export const b = 'checkout';\n",
    });
    // pnpm's layout (as pnpm 9 installs a `workspace:*` dependency): packages/a/node_modules/b is a relative link to its sibling.
    writeFiles(repo, { 'node_modules/.modules.yaml': 'layoutVersion: 5\n' });
    mkdirSync(path.join(repo, 'packages/a/node_modules'), { recursive: true });
    symlinkSync('../../b', path.join(repo, 'packages/a/node_modules/b'));
    const dir = path.join(tempDir('orca-wt-'), 'task');
    await addWorktree({ repo, dir, base: git(repo, 'rev-parse', 'HEAD'), branch: 'task' });
    const entries = await placeStartFiles({ repo, checkout: repo, dir, symlinkDirectories: ['node_modules'] });
    expect(entries.map((entry) => entry.path)).toEqual(['node_modules', 'packages/a/node_modules']);
    writeFileSync(path.join(dir, 'packages/b/index.js'), "export const b = 'worktree';\n");
    const imported = execFileSync(
      process.execPath,
      ['--input-type=module', '-e', "import('./packages/a/index.js').then((m) => console.log(m.b))"],
      {
        cwd: dir,
        encoding: 'utf8',
      },
    );
    expect(imported.trim()).toBe('worktree');
  });

  it('a worktree at a commit another already listed finds its workspace packages from that listing, with no git process', async () => {
    const repo = makeRepo({
      '.gitignore': 'node_modules/\n',
      'package.json': '{"name":"mono","private":true}',
      'packages/a/package.json': '{"name":"a","type":"module"}',
      'packages/b/package.json': '{"name":"b","type":"module"}',
    });
    mkdirSync(path.join(repo, 'node_modules'));
    mkdirSync(path.join(repo, 'packages/a/node_modules'));
    const commit = git(repo, 'rev-parse', 'HEAD');
    const [first, second] = [path.join(tempDir('orca-wt-'), 'one'), path.join(tempDir('orca-wt-'), 'two')];
    await addWorktree({ repo, dir: first, base: commit, branch: 'one' });
    await addWorktree({ repo, dir: second, base: commit, branch: 'two' });
    const place = (dir: string) => placeStartFiles({ repo, checkout: repo, dir, symlinkDirectories: ['node_modules'], commit });
    const listed = (await place(first)).map((entry) => entry.path);
    expect(listed).toEqual(['node_modules', 'packages/a/node_modules']);
    // No git on the PATH: the second worktree's packages come from the commit's listing the first asked for.
    const pathWas = process.env.PATH;
    process.env.PATH = '';
    try {
      expect((await place(second)).map((entry) => entry.path)).toEqual(listed);
    } finally {
      process.env.PATH = pathWas;
    }
  });

  it('tools’ caches in node_modules are the worktree’s own: never linked from the checkout, and writable inside the sandbox', async () => {
    const { repo, dir } = await workspacesWorktree({
      // As vitest bundling a TypeScript config (node_modules/.vite-temp) and find-cache-dir (node_modules/.cache) do.
      'test/cache.test.mjs': [
        "import test from 'node:test';",
        "import { mkdirSync, writeFileSync } from 'node:fs';",
        "test('writes its caches', () => {",
        "  mkdirSync('node_modules/.vite-temp', { recursive: true });",
        "  writeFileSync('node_modules/.vite-temp/vitest.config.ts.mjs', 'export default {};');",
        "  mkdirSync('node_modules/.cache/xo', { recursive: true });",
        "  writeFileSync('node_modules/.cache/xo/results.json', '{}');",
        '});',
        '',
      ].join('\n'),
    });
    writeFiles(repo, { 'node_modules/.cache/xo/stale.json': '{"from":"the checkout"}' });
    const fresh = path.join(tempDir('orca-wt-'), 'fresh');
    await addWorktree({ repo, dir: fresh, base: git(repo, 'rev-parse', 'HEAD'), branch: 'fresh' });
    await placeStartFiles({ repo, checkout: repo, dir: fresh, symlinkDirectories: ['node_modules'] });
    expect(existsSync(path.join(fresh, 'node_modules/.cache'))).toBe(false);

    const bwrap = findOnPath('bwrap');
    if (!bwrap) throw new Error('bwrap is not installed: scripts/system-tools.sh installs it');
    // The sandbox checks get: the worktree writable, the checkout (under the host's /tmp) readable only.
    const wrap = bwrapWrap(
      bwrap,
      sandboxPolicy({ worktree: dir, tempDir: tempDir('orca-sandbox-tmp-'), extraReadable: [path.join(repo, 'node_modules'), repo] }),
    );
    const { file, args } = wrap(`${process.execPath} --test test/`, dir);
    const run = spawnSync(file, args, { cwd: dir, encoding: 'utf8' });
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(existsSync(path.join(dir, 'node_modules/.cache/xo/results.json'))).toBe(true);
    expect(existsSync(path.join(repo, 'node_modules/.vite-temp'))).toBe(false);
  });

  it('a write inside an installed package fails in the sandbox, and the output says that node_modules is read-only and what to do', async () => {
    const { repo, dir } = await workspacesWorktree();
    const bwrap = findOnPath('bwrap');
    if (!bwrap) throw new Error('bwrap is not installed: scripts/system-tools.sh installs it');
    const wrap = bwrapWrap(bwrap, sandboxPolicy({ worktree: dir, tempDir: tempDir('orca-sandbox-tmp-'), extraReadable: [repo] }));
    const command = `${process.execPath} -e "require('fs').writeFileSync('node_modules/installed/cache.json', '{}')"`;
    const evidence = await runCheck({ command }, { cwd: dir, logDir: tempDir('orca-check-log-'), launcher: { sandbox: 'bwrap', wrap } });
    expect(evidence.exit_code).toBe(1);
    const log = readFileSync(evidence.log, 'utf8');
    expect(log).toContain('EROFS');
    expect(log).toMatch(/^orca: node_modules\/installed\/cache\.json is read-only here: .*links to the user's checkout.*`npm ci`/m);
    expect(existsSync(path.join(repo, 'node_modules/installed/cache.json'))).toBe(false);
    // An agent's sandboxed Bash gets the same line after the command's output.
    const ctx = makeToolContext({ root: dir });
    ctx.shell.wrap = wrap;
    const bash = await makeBashTool().call({ command }, ctx);
    expect(bash.content).toMatch(/EROFS[\s\S]*\nExit code: 1\norca: node_modules\/installed\/cache\.json is read-only here: /);
    // Output with no such failure gets no note.
    expect(readOnlyDependencyNote("EACCES: permission denied, open '/etc/shadow'")).toBeUndefined();
  });
});
