import { describe, expect, it } from 'vitest';
import { OwnedPaths } from '../../shared/policy/permissions/ownedPaths.js';
import { lookAndStatus } from '../../shared/policy/permissions/worktreeChanges.js';
import { WorktreeWatch } from '../../shared/policy/permissions/worktreeWatch.js';
import { git, makeRepo, writeFiles } from '../support/gitRepo.js';

describe("the watch's last look", () => {
  it('is kept for others to read while it tells the tree as it is, and dropped after a look that put something back', async () => {
    const repo = makeRepo({ 'README.md': '# r\n', 'src/a.ts': 'a\n' });
    const start = git(repo, 'rev-parse', 'HEAD');
    const watch = await WorktreeWatch.open({ root: repo, start, owned: new OwnedPaths(undefined), linked: [] });
    expect(watch.lastStatus()).toBeUndefined();
    writeFiles(repo, { 'src/a.ts': 'changed\n', 'src/new.ts': 'new\n' });
    await watch.check();
    const seen = watch.lastStatus();
    expect(seen).toBe((await lookAndStatus(repo, start, [], { ignored: true })).status);
    expect(seen).toContain('src/new.ts');
    // A guarded file written by a command is put back after git looked: that look no longer tells the tree.
    writeFiles(repo, { '.claude/settings.json': '{"hooks":{}}\n' });
    const found = await watch.check();
    expect(found.reverted.map((item) => item.path)).toEqual(['.claude/settings.json']);
    expect(watch.lastStatus()).toBeUndefined();
    // The next look finds the tree as it is again.
    await watch.check();
    expect(watch.lastStatus()).toBe((await lookAndStatus(repo, start, [], { ignored: true })).status);
  });
});
