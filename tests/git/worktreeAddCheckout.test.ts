import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { withRepoLock } from '../../shared/core/git/repoLock.js';
import { addWorktree } from '../../shared/core/git/worktree.js';
import { git, makeRepo, worktreeFolders } from '../support/gitRepo.js';
import { tempDir } from '../support/tempDir.js';

const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
const originalPath = process.env.PATH;

/**
 * A `git` first on PATH that runs the real one, but holds a worktree's checkout (`checkout --quiet
 * --force`) until `release` exists, saying it is there by `arrived`; with `fail`, the checkout
 * exits 1 instead. What it holds is the one step addWorktree runs outside the repository's lock.
 */
function gitThatHoldsCheckouts(mode: 'hold' | 'fail'): { arrived: string; release: string } {
  const dir = tempDir();
  const bin = path.join(dir, 'bin');
  mkdirSync(bin);
  const arrived = path.join(dir, 'arrived');
  const release = path.join(dir, 'release');
  const held =
    mode === 'hold'
      ? `touch '${arrived}'; while [ ! -e '${release}' ]; do sleep 0.01; done`
      : `touch '${arrived}'; echo 'fatal: the checkout was refused' >&2; exit 1`;
  writeFileSync(
    path.join(bin, 'git'),
    `#!/bin/sh\ncase " $* " in *" checkout --quiet --force "*) ${held};; esac\nexec '${realGit}' "$@"\n`,
  );
  chmodSync(path.join(bin, 'git'), 0o755);
  process.env.PATH = `${bin}:${originalPath}`;
  return { arrived, release };
}

async function until(file: string): Promise<void> {
  for (let waited = 0; !existsSync(file); waited += 10) {
    if (waited > 60_000) throw new Error(`the checkout never started (${file} not made)`);
    await sleep(10);
  }
}

afterEach(() => {
  process.env.PATH = originalPath;
});

describe('addWorktree’s checkout', () => {
  it('runs outside the repository’s lock: another add or removal may take it meanwhile', async () => {
    const repo = makeRepo({ 'README.md': '# test\n', 'src/a.ts': 'export const a = 1;\n' });
    const base = git(repo, 'rev-parse', 'HEAD');
    const dir = path.join(tempDir(), 'task');
    const { arrived, release } = gitThatHoldsCheckouts('hold');
    let settled = false;
    const adding = addWorktree({ repo, dir, base, branch: 'orca/r1/t1' }).finally(() => {
      settled = true;
    });
    await until(arrived);
    // The lock is free while the checkout is held: taken here, the add still under way.
    const whileHeld = await withRepoLock(repo, async () => ({ registered: worktreeFolders(repo).length, settled }));
    expect(whileHeld).toEqual({ registered: 2, settled: false });
    writeFileSync(release, '');
    await expect(adding).resolves.toBe(base);
    expect(git(dir, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('orca/r1/t1');
    expect(git(dir, 'status', '--porcelain', '--untracked-files=all')).toBe('');
    expect(git(dir, 'ls-files').split('\n').sort()).toEqual(['README.md', 'src/a.ts']);
  });

  it('that fails leaves nothing: no worktree, no folder, no branch, and says why', async () => {
    const repo = makeRepo();
    const base = git(repo, 'rev-parse', 'HEAD');
    const dir = path.join(tempDir(), 'task');
    gitThatHoldsCheckouts('fail');
    await expect(addWorktree({ repo, dir, base, branch: 'orca/r1/t1' })).rejects.toThrow(
      /git could not check out [0-9a-f]{12} into .*task: .*the checkout was refused/,
    );
    expect(worktreeFolders(repo)).toHaveLength(1);
    expect(existsSync(dir)).toBe(false);
    expect(git(repo, 'branch', '--list', 'orca/r1/t1')).toBe('');
  });
});
