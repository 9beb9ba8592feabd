import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { IntegrationBranch } from '../../coordinator/merge/integration.js';
import { commitFiles, git, makeRepo } from '../support/gitRepo.js';
import { tempDir } from '../support/tempDir.js';

describe('the integration branch', () => {
  it('merges task branches with --no-ff, and aborts a conflicting merge leaving the branch as it was', async () => {
    const repo = makeRepo({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    const base = git(repo, 'rev-parse', 'HEAD');
    for (const [branch, file, content] of [
      ['orca/r/t1', 'a.txt', 'a from t1\n'],
      ['orca/r/t2', 'b.txt', 'b from t2\n'],
      ['orca/r/t3', 'a.txt', 'a from t3\n'],
    ] as const) {
      git(repo, 'checkout', '-q', '-b', branch, base);
      commitFiles(repo, { [file]: content }, branch);
    }
    git(repo, 'checkout', '-q', 'main');
    const integration = new IntegrationBranch(repo, 'r', path.join(tempDir(), 'integration'));
    expect(await integration.open(base)).toBe(base);

    const [m1, m2] = await Promise.all([integration.merge('orca/r/t1', 'merge t1'), integration.merge('orca/r/t2', 'merge t2')]);
    expect(m1.kind).toBe('merged');
    expect(m2).toMatchObject({ kind: 'merged', files: ['b.txt'] });
    const head = await integration.head();
    expect(git(repo, 'rev-list', '--merges', '--count', `${base}..orca/r/integration`)).toBe('2');

    const conflict = await integration.merge('orca/r/t3', 'merge t3');
    expect(conflict).toMatchObject({ kind: 'conflict', files: ['a.txt'] });
    expect(await integration.head()).toBe(head);
    expect(git(integration.dir, 'status', '--porcelain')).toBe('');
    expect(await integration.merge('orca/r/t1', 'again')).toEqual({ kind: 'nothing', commit: head });
    // The head is read from the ref files: a packed ref is found there too.
    git(repo, 'pack-refs', '--all');
    expect(await integration.head()).toBe(head);
  });
});
