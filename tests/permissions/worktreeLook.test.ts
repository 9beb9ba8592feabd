import { mkdirSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { guardedIgnored, lookAtWorktree } from '../../shared/policy/permissions/worktreeChanges.js';
import { commitFiles, git, makeRepo, writeFiles } from '../support/gitRepo.js';

/**
 * lookAtWorktree answers with one `git status` what the watch asked three git commands before: the
 * diff with the start commit, the untracked files, and the ignored ones. These compare it with
 * those commands themselves, run on the same tree, in the states an agent can leave a worktree in.
 */
function oracle(root: string, start: string, linked: string[] = []): string[] {
  const list = (out: string) => out.split('\0').filter(Boolean);
  const tracked = list(git(root, 'diff', '--name-only', '-z', '--no-renames', start, '--'));
  const untracked = list(git(root, 'ls-files', '--others', '--exclude-standard', '-z'));
  const isLinked = (file: string) => linked.some((name) => file === name || file.startsWith(`${name}/`));
  return [...new Set([...tracked, ...untracked])].filter((file) => !isLinked(file)).sort();
}

function oracleGuarded(root: string): string[] {
  const entries = git(root, 'ls-files', '--others', '--ignored', '--exclude-standard', '--directory', '-z').split('\0').filter(Boolean);
  return [...guardedIgnored(root, entries).keys()].sort();
}

async function expectSameAsGit(root: string, start: string, linked: string[] = []): Promise<string[]> {
  const look = await lookAtWorktree(root, start, linked, { ignored: true });
  expect(look.changed).toEqual(oracle(root, start, linked));
  // Every guarded ignored file git's own listing finds is found (the status may find more: it lists files in folders it does not collapse).
  const found = [...guardedIgnored(root, look.ignored).keys()];
  expect(found).toEqual(expect.arrayContaining(oracleGuarded(root)));
  return look.changed;
}

const FILES = {
  'README.md': '# r\n',
  'src/a.ts': 'export const a = 1;\n',
  'src/b.ts': 'export const b = 1;\n',
  'name with spaces.txt': 'x\n',
  '.gitignore': 'node_modules/\n.env\nsettings.local.json\n*.pem\nsecrets\n',
  '.claude/settings.json': '{}\n',
};

describe('lookAtWorktree', () => {
  it('finds what the diff and ls-files find: edits, deletions, new files, odd names, links', async () => {
    const repo = makeRepo(FILES);
    const start = git(repo, 'rev-parse', 'HEAD');
    expect(await expectSameAsGit(repo, start)).toEqual([]);
    writeFiles(repo, { 'src/a.ts': 'export const a = 2;\n', 'new/deep/file.ts': 'n\n', 'name with spaces.txt': 'y\n', 'tab\tname': 't\n' });
    unlinkSync(path.join(repo, 'src/b.ts'));
    symlinkSync('/etc/passwd', path.join(repo, 'out-link'));
    expect(await expectSameAsGit(repo, start)).toEqual([
      'name with spaces.txt',
      'new/deep/file.ts',
      'out-link',
      'src/a.ts',
      'src/b.ts',
      'tab\tname',
    ]);
  });

  it('leaves out a file staged with a change and put back on disk, as the diff does; keeps one staged and changed again', async () => {
    const repo = makeRepo(FILES);
    const start = git(repo, 'rev-parse', 'HEAD');
    writeFiles(repo, { 'src/a.ts': 'staged\n', 'src/b.ts': 'staged\n' });
    git(repo, 'add', 'src/a.ts', 'src/b.ts');
    writeFiles(repo, { 'src/a.ts': FILES['src/a.ts'], 'src/b.ts': 'changed again\n' });
    // A file added to the index and then deleted from disk is no change either.
    writeFiles(repo, { 'gone.ts': 'g\n' });
    git(repo, 'add', 'gone.ts');
    unlinkSync(path.join(repo, 'gone.ts'));
    expect(await expectSameAsGit(repo, start)).toEqual(['src/b.ts']);
  });

  it('compares with the start commit, not HEAD, when the agent committed or moved HEAD', async () => {
    const repo = makeRepo(FILES);
    const start = git(repo, 'rev-parse', 'HEAD');
    commitFiles(repo, { 'src/a.ts': 'committed\n' }, 'the agent commits');
    writeFiles(repo, { 'src/b.ts': 'on disk\n' });
    expect(await expectSameAsGit(repo, start)).toEqual(['src/a.ts', 'src/b.ts']);
    git(repo, 'reset', '-q', '--hard', start);
    git(repo, 'checkout', '-q', '--detach', start);
    expect(await expectSameAsGit(repo, start)).toEqual([]);
  });

  it('counts a file taken out of the index but left on disk, and leaves out linked paths', async () => {
    const repo = makeRepo(FILES);
    const start = git(repo, 'rev-parse', 'HEAD');
    git(repo, 'rm', '-q', '--cached', 'src/a.ts');
    mkdirSync(path.join(repo, 'linked'), { recursive: true });
    writeFileSync(path.join(repo, 'linked', 'x.js'), 'x\n');
    expect(await expectSameAsGit(repo, start, ['linked'])).toEqual(['src/a.ts']);
  });

  it('finds the guarded ignored files: .env, a local settings file, and guarded files in ignored folders', async () => {
    const repo = makeRepo(FILES);
    const start = git(repo, 'rev-parse', 'HEAD');
    writeFiles(repo, {
      '.env': 'SECRET=1\n',
      'pkg/.env.local': 'SECRET=2\n',
      '.claude/settings.local.json': '{"hooks":{}}\n',
      'node_modules/x/index.js': 'm\n',
      'certs/a.pem': 'p\n',
      'secrets/.env': 's\n',
    });
    const look = await lookAtWorktree(repo, start, [], { ignored: true });
    const guarded = [...guardedIgnored(repo, look.ignored).keys()].sort();
    expect(guarded).toEqual(expect.arrayContaining(['.claude/settings.local.json', '.env']));
    await expectSameAsGit(repo, start);
    rmSync(path.join(repo, '.env'));
    expect([...guardedIgnored(repo, (await lookAtWorktree(repo, start, [], { ignored: true })).ignored).keys()]).not.toContain('.env');
  });

  it('asks nothing about ignored files unless told to', async () => {
    const repo = makeRepo(FILES);
    const start = git(repo, 'rev-parse', 'HEAD');
    writeFiles(repo, { '.env': 'SECRET=1\n' });
    expect((await lookAtWorktree(repo, start, [])).ignored).toEqual([]);
  });
});
