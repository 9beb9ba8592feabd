import { spawnSync } from 'node:child_process';
import { realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { gitCommonDir, ownGitDir } from '../../shared/core/git/gitFolders.js';
import { git, makeRepo } from '../support/gitRepo.js';
import { tempDir } from '../support/tempDir.js';

/** What git itself makes of the worktree at `dir`: its git folder and common folder, or undefined when it refuses the `.git` there. */
function gitSays(dir: string): { gitDir: string; commonDir: string } | undefined {
  const ran = spawnSync('git', ['rev-parse', '--absolute-git-dir', '--git-common-dir'], { cwd: dir, encoding: 'utf8' });
  if (ran.status !== 0) return undefined;
  const [gitDir = '', common = ''] = ran.stdout.trim().split('\n');
  return { gitDir: realpathSync(gitDir), commonDir: realpathSync(path.resolve(dir, common)) };
}

/** What gitFolders makes of it, in the same form. */
function weSay(dir: string): { gitDir: string; commonDir: string } | undefined {
  const own = ownGitDir(dir);
  return own === undefined ? undefined : { gitDir: realpathSync(own), commonDir: realpathSync(gitCommonDir(own)) };
}

function linkedWorktree(): { repo: string; dir: string; admin: string } {
  const repo = makeRepo();
  const dir = path.join(tempDir(), 'linked');
  git(repo, 'worktree', 'add', '--quiet', '--detach', dir);
  return { repo, dir, admin: path.join(realpathSync(repo), '.git', 'worktrees', 'linked') };
}

describe('gitFolders', () => {
  it('finds a checkout’s and a linked worktree’s git folders where git does', () => {
    const { repo, dir } = linkedWorktree();
    expect(weSay(repo)).toEqual(gitSays(repo));
    expect(weSay(dir)).toEqual(gitSays(dir));
    expect(weSay(dir)!.commonDir).toBe(realpathSync(path.join(repo, '.git')));
  });

  it('reads a `.git` file as git does: a relative path, Windows line ends, and the texts git refuses', () => {
    const { dir, admin } = linkedWorktree();
    const variants: Record<string, string> = {
      relative: `gitdir: ${path.relative(dir, admin)}\n`,
      crlf: `gitdir: ${admin}\r\n`,
      'no newline': `gitdir: ${admin}`,
      // git's own reading (setup.c read_gitfile_gently) takes neither: the file must begin `gitdir: `.
      'no space': `gitdir:${admin}\n`,
      'second line': `# moved\ngitdir: ${admin}\n`,
      'leading space': ` gitdir: ${admin}\n`,
      empty: 'gitdir: \n',
    };
    const accepted: string[] = [];
    for (const [name, text] of Object.entries(variants)) {
      writeFileSync(path.join(dir, '.git'), text);
      const theirs = gitSays(dir);
      expect(weSay(dir), name).toEqual(theirs);
      if (theirs) accepted.push(name);
    }
    // The cases above are the ones they are meant to be: git took three and refused four.
    expect(accepted).toEqual(['relative', 'crlf', 'no newline']);
  });

  it('takes a `commondir` as git does, with its line end, and a git folder without one as its own', () => {
    const { repo, dir, admin } = linkedWorktree();
    writeFileSync(path.join(admin, 'commondir'), '../..\r\n');
    expect(weSay(dir)).toEqual(gitSays(dir));
    expect(gitCommonDir(path.join(repo, '.git'))).toBe(path.join(repo, '.git'));
    expect(ownGitDir(tempDir())).toBeUndefined();
  });
});
