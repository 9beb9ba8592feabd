import { realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { inspectRepo } from '../../coordinator/repoCheck.js';
import { git, makeRepo } from '../support/gitRepo.js';
import { tempDir } from '../support/tempDir.js';

// The base and the clean-tree look are asked of git together (one round trip fewer before a run's
// id): what the user is told must stay what it was when they were asked one after the other.
describe("the pre-start's look at the repository (inspectRepo)", () => {
  it('gives the root and the base of a clean repository, from a subfolder too', async () => {
    const repo = makeRepo({ 'src/a.txt': 'a\n' });
    const head = git(repo, 'rev-parse', 'HEAD');
    expect(await inspectRepo(path.join(repo, 'src'), {})).toEqual({ root: realpathSync(repo), base: head });
  });

  it('refuses uncommitted changes, counting them, unless --allow-dirty', async () => {
    const repo = makeRepo();
    writeFileSync(path.join(repo, 'README.md'), 'changed\n');
    writeFileSync(path.join(repo, 'new.txt'), 'new\n');
    await expect(inspectRepo(repo, {})).rejects.toThrow(/has 2 uncommitted change\(s\); agents start from [0-9a-f]{12} .*--allow-dirty/);
    expect((await inspectRepo(repo, { allowDirty: true })).base).toBe(git(repo, 'rev-parse', 'HEAD'));
  });

  it('says a repository without commits has none, before anything about its untracked files', async () => {
    const repo = tempDir('orca-empty-');
    git(repo, 'init', '-q', '-b', 'main');
    writeFileSync(path.join(repo, 'untracked.txt'), 'x\n');
    await expect(inspectRepo(repo, {})).rejects.toThrow(/has no commits yet: commit something first/);
  });

  it('names a --base that is no commit before the changes beside it', async () => {
    const repo = makeRepo();
    writeFileSync(path.join(repo, 'README.md'), 'changed\n');
    await expect(inspectRepo(repo, { base: 'no-such-branch' })).rejects.toThrow(/--base no-such-branch is not a commit in /);
  });

  it('refuses a folder that is no repository, and one that does not exist', async () => {
    const plain = tempDir('orca-plain-');
    await expect(inspectRepo(plain, {})).rejects.toThrow(/is not a git repository: run orca inside one, or pass --repo/);
    await expect(inspectRepo(path.join(plain, 'missing'), {})).rejects.toThrow(/does not exist: pass --repo/);
  });
});
