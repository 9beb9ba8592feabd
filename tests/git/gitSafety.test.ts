import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readCommitBlobs } from '../../shared/core/git/commitFiles.js';
import { gitAt, runGit } from '../../shared/core/git/git.js';
import { forgetUserGitConfig, gitEnv, gitInvocation, repositoryDrivers, talksToRemote } from '../../shared/core/git/gitSafety.js';
import { addWorktree, removeWorktree } from '../../shared/core/git/worktree.js';
import { lookAtWorktree } from '../../shared/policy/permissions/worktreeChanges.js';
import { commitFiles, git, makeRepo } from '../support/gitRepo.js';
import { tempDir } from '../support/tempDir.js';

/**
 * An agent without a sandbox can write the repository's git config and the user's ~/.gitconfig.
 * Every program such a config can make git run leaves a marker file; none may appear while orca's
 * own git works in the repository (status, diff, show, log, add, commit, worktree add, checkout,
 * merge, the batch reader, the watch's look).
 */
describe("orca's git runs nothing an agent wrote", () => {
  let home: string;
  let markers: string;
  let payloads: string;
  const saved = { HOME: process.env.HOME, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME };

  beforeEach(() => {
    home = tempDir('orca-fake-home-');
    markers = tempDir('orca-markers-');
    payloads = tempDir('orca-payloads-');
    process.env.HOME = home;
    delete process.env.XDG_CONFIG_HOME;
    forgetUserGitConfig();
  });
  afterEach(() => {
    process.env.HOME = saved.HOME;
    if (saved.XDG_CONFIG_HOME !== undefined) process.env.XDG_CONFIG_HOME = saved.XDG_CONFIG_HOME;
    forgetUserGitConfig();
  });

  /** A program that leaves a marker named `what`, then behaves as `then`. */
  const payload = (what: string, then = 'cat') => {
    const file = path.join(payloads, `${what}.sh`);
    writeFileSync(file, `#!/bin/sh\ntouch ${markers}/${what}\n${then}\n`);
    chmodSync(file, 0o755);
    return file;
  };
  const planted = () => readdirSync(markers).sort();

  /** A repository (with a `side` branch that conflicts with main), then its config and hooks made hostile. */
  function hostileRepo(): string {
    const repo = makeRepo({ 'a.txt': 'one\n', '.gitattributes': '*.txt filter=evil diff=evil merge=evil\n' });
    git(repo, 'branch', 'side');
    commitFiles(repo, { 'a.txt': 'one\nmain\n' }, 'main side');
    const include = path.join(tempDir('orca-include-'), 'more.config');
    writeFileSync(include, `[filter "sneaky"]\n\tclean = ${payload('include-clean')}\n`);
    const config = [
      '[core]',
      `\tfsmonitor = ${payload('fsmonitor', 'true')}`,
      `\thooksPath = ${path.join(markers, 'no-such-hooks')}`,
      `[filter "evil"]\n\tclean = ${payload('filter-clean')}\n\tsmudge = ${payload('filter-smudge')}\n\trequired = true`,
      `[diff "evil"]\n\ttextconv = ${payload('textconv')}`,
      `[diff]\n\texternal = ${payload('diff-external', 'true')}`,
      `[merge "evil"]\n\tdriver = ${payload('merge-driver', 'false')}`,
      `[include]\n\tpath = ${include}`,
    ].join('\n');
    writeFileSync(path.join(repo, '.git', 'config'), `${config}\n`, { flag: 'a' });
    const hook = path.join(repo, '.git', 'hooks', 'post-checkout');
    writeFileSync(hook, `#!/bin/sh\ntouch ${markers}/post-checkout\n`);
    chmodSync(hook, 0o755);
    writeFileSync(
      path.join(home, '.gitconfig'),
      `[core]\n\tfsmonitor = ${payload('global-fsmonitor', 'true')}\n[user]\n\tname = Ada\n[safe]\n\tdirectory = /srv/kept\n`,
    );
    return repo;
  }

  it('finds the drivers the repository names, in its includes too', () => {
    const repo = hostileRepo();
    expect(repositoryDrivers(repo)).toEqual({ filters: ['evil', 'sneaky'], merges: ['evil'] });
  });

  it('names a driver written into a configuration it had read and kept: settled a second before, then rewritten', async () => {
    const repo = makeRepo();
    const worktree = path.join(tempDir('orca-drivers-wt-'), 'wt');
    git(repo, 'worktree', 'add', '-q', '--detach', worktree);
    const config = path.join(repo, '.git', 'config');
    // Settled: its ctime over a second old when read, so its text is kept until it changes.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(repositoryDrivers(worktree)).toEqual({ filters: [], merges: [] });
    expect(repositoryDrivers(worktree)).toEqual({ filters: [], merges: [] });
    for (const [round, name] of ['aa', 'bb', 'cc'].entries()) {
      writeFileSync(config, `${readFileSync(config, 'utf8')}[filter "${name}"]\n\tclean = x\n`);
      expect(repositoryDrivers(worktree).filters).toHaveLength(round + 1);
      expect(gitInvocation(worktree, ['status'], {}).args).toContain(`filter.${name}.clean=`);
    }
  });

  it('status, diff, show, log, add, commit, the batch reader and the watch run no program of the configs', async () => {
    const repo = hostileRepo();
    writeFileSync(path.join(repo, 'a.txt'), 'one\ntwo\n');
    const client = gitAt(repo);
    await client.raw(['status', '--porcelain']);
    expect(await client.raw(['diff'])).toContain('+two');
    await client.raw(['show', 'HEAD']);
    await client.raw(['log', '-p', '-1']);
    await client.raw(['add', 'a.txt']);
    await client.raw(['commit', '-q', '-m', 'two']);
    const head = (await client.raw(['rev-parse', 'HEAD'])).trim();
    expect((await readCommitBlobs(repo, head, ['a.txt'])).get('a.txt')?.toString()).toBe('one\ntwo\n');
    await lookAtWorktree(repo, head, [], { ignored: true });
    expect(planted()).toEqual([]);
  });

  it('worktree add, checkout and a merge with a driver named run no program either', async () => {
    const repo = hostileRepo();
    const dir = path.join(tempDir('orca-wt-'), 'side');
    await addWorktree({ repo, dir, branch: 'side-work', base: 'side' });
    writeFileSync(path.join(dir, 'a.txt'), 'one\nside\n');
    await gitAt(dir).raw(['commit', '-q', '-am', 'side']);
    const merged = await runGit(repo, ['merge', '--no-edit', 'side-work']);
    expect(merged.code).not.toBe(0); // A real conflict, found by git's own merge, not the planted driver.
    await runGit(repo, ['merge', '--abort']);
    await removeWorktree(repo, dir);
    expect(planted()).toEqual([]);
  });

  it("keeps the user's keys that run nothing, and the git environment holds no secret", () => {
    hostileRepo();
    const call = gitInvocation(home, ['status'], { ANTHROPIC_API_KEY: 'sk-ant-fake-secret-000', PATH: '/usr/bin', GIT_EXTERNAL_DIFF: 'x' });
    expect(call.args).toEqual(
      expect.arrayContaining(['-c', 'user.name=Ada', '-c', 'safe.directory=/srv/kept', '-c', 'core.fsmonitor=false']),
    );
    expect(call.args.join(' ')).not.toContain('global-fsmonitor');
    expect(call.env).toEqual({ PATH: '/usr/bin', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_TERMINAL_PROMPT: '0' });
    expect(gitEnv({ GITHUB_TOKEN: 'ghp_x' })).not.toHaveProperty('GITHUB_TOKEN');
  });

  it('adds --no-ext-diff --no-textconv to diffs only, and keeps credential helpers for remote commands only', () => {
    mkdirSync(path.join(home, 'x'));
    writeFileSync(path.join(home, '.gitconfig'), '[credential]\n\thelper = store\n');
    forgetUserGitConfig();
    const diff = gitInvocation(home, ['-c', 'a.b=diff', 'diff', 'HEAD'], {}).args;
    expect(diff.slice(-4)).toEqual(['diff', '--no-ext-diff', '--no-textconv', 'HEAD']);
    expect(gitInvocation(home, ['status'], {}).args).toEqual(expect.arrayContaining(['-c', 'credential.helper=']));
    const push = gitInvocation(home, ['push', 'origin', 'x'], {}).args;
    expect(push).toEqual(expect.arrayContaining(['-c', 'credential.helper=store']));
    expect(push).not.toContain('credential.helper=');
    expect(existsSync(path.join(home, 'x'))).toBe(true);
  });
});

describe('talksToRemote: which git calls may wait on a network (spawned so that Ctrl-C ends them)', () => {
  it('names push, fetch, clone, ls-remote and pull, options and -c pairs before them skipped', () => {
    for (const sub of ['push', 'fetch', 'clone', 'ls-remote', 'pull']) expect(talksToRemote(['-c', 'a.b=c', sub, 'origin'])).toBe(true);
    expect(talksToRemote(['status', '--porcelain'])).toBe(false);
    expect(talksToRemote(['-c', 'push.default=simple', 'commit-tree', 'abc'])).toBe(false);
  });
});
