import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { refFromFiles } from '../../shared/core/git/refFile.js';
import { git, makeRepo } from '../support/gitRepo.js';

describe('reading a ref from the repository files', () => {
  it('reads a loose ref, then the same ref once packed, and leaves a missing or symbolic one to git', () => {
    const repo = makeRepo();
    const head = git(repo, 'rev-parse', 'HEAD');
    git(repo, 'branch', 'orca/r/integration');
    const common = path.join(repo, '.git');
    expect(refFromFiles(common, 'refs/heads/orca/r/integration')).toBe(head);
    git(repo, 'pack-refs', '--all');
    expect(refFromFiles(common, 'refs/heads/orca/r/integration')).toBe(head);
    expect(refFromFiles(common, 'refs/heads/orca/r/missing')).toBeUndefined();
    expect(refFromFiles(common, 'HEAD')).toBeUndefined();
  });
});
