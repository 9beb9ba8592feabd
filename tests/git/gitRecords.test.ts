import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { gitAt } from '../../shared/core/git/git.js';
import { gitRecords } from '../../shared/core/git/gitRecords.js';
import { git, makeRepo } from '../support/gitRepo.js';
import { tempDir } from '../support/tempDir.js';

async function records(dir: string, args: string[]): Promise<string[]> {
  const out: string[] = [];
  await gitRecords(dir, args, (record) => out.push(record));
  return out;
}

describe('gitRecords', () => {
  it('hands over every record of a listing larger than one pipe read, multi-byte names whole, as raw reads them', async () => {
    const repo = makeRepo();
    // About 3,000 entries of ~90 bytes: several 64 KB pipe reads, so records and characters fall across reads.
    for (let folder = 0; folder < 30; folder += 1) {
      const dir = path.join(repo, `dossier-é${folder}`, 'ünïcödé-日本語');
      mkdirSync(dir, { recursive: true });
      for (let file = 0; file < 100; file += 1) writeFileSync(path.join(dir, `fichier-ß-${file}.txt`), `${folder}/${file}\n`);
    }
    git(repo, 'add', '-A');
    const args = ['ls-files', '-z', '--stage'];
    const whole = (await gitAt(repo).raw(args)).split('\0');
    expect(whole.pop()).toBe('');
    const streamed = await records(repo, args);
    expect(streamed.length).toBeGreaterThan(3_000);
    expect(streamed).toEqual(whole);
    expect(streamed.some((record) => record.includes('ünïcödé-日本語/fichier-ß-99.txt'))).toBe(true);
  });

  it("rejects with git's own message where git fails saying why", async () => {
    const notRepo = tempDir();
    await expect(records(notRepo, ['ls-files', '-z'])).rejects.toThrow(/not a git repository/);
    await expect(records(path.join(notRepo, 'missing'), ['ls-files', '-z'])).rejects.toThrow(/does not exist/);
  });

  it('stops git and rejects with the error when a record cannot be taken', async () => {
    const repo = makeRepo();
    const refused = new Error('no more');
    await expect(
      gitRecords(repo, ['ls-files', '-z'], () => {
        throw refused;
      }),
    ).rejects.toBe(refused);
  });
});
