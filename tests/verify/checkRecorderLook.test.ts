import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { treeSnapshot } from '../../shared/infra/verify/evidence/treeHash.js';
import { addProject, bash, report, runWorker, TEST_COMMAND } from './traps/trapKit.js';

/** The watch's look: `git status` as worktreeWatch.ts takes it (porcelain v2, -z, every untracked file). */
function statusV2(dir: string): string {
  return execFileSync(
    'git',
    ['status', '--porcelain=v2', '--branch', '-z', '--untracked-files=all', '--no-renames', '--ignored=matching'],
    {
      cwd: dir,
      encoding: 'utf8',
    },
  );
}

describe("the tree a recorded check started on, from the watch's look", () => {
  it('is hashed from the look when it is given (nothing wrote since), and equals what git tells', async () => {
    const { dir } = addProject();
    writeFileSync(path.join(dir, 'src/extra.mjs'), 'export const x = 1;\n');
    const look = statusV2(dir);
    const run = await runWorker({
      root: dir,
      turns: [bash(TEST_COMMAND), report([{ command: TEST_COMMAND, exit_code: 0 }])],
      recorderOptions: { unchangedLook: () => look },
    });
    const [evidence] = run.recorder.evidence();
    expect(evidence?.tree).toBe((await treeSnapshot(dir)).digest);
  });

  it('takes what the look says: a look older than the tree hashes the tree it saw, which is why only an unchanged one is given', async () => {
    const { dir } = addProject();
    const before = statusV2(dir);
    const beforeDigest = (await treeSnapshot(dir)).digest;
    // Written after the look: a look that no longer tells the tree misses the new file.
    writeFileSync(path.join(dir, 'src/late.mjs'), 'export const late = 1;\n');
    const stale = await runWorker({
      root: dir,
      turns: [bash(TEST_COMMAND), report([{ command: TEST_COMMAND, exit_code: 0 }])],
      recorderOptions: { unchangedLook: () => before },
    });
    expect(stale.recorder.evidence()[0]?.tree).toBe(beforeDigest);
    const asked = await runWorker({ root: dir, turns: [bash(TEST_COMMAND), report([{ command: TEST_COMMAND, exit_code: 0 }])] });
    expect(asked.recorder.evidence()[0]?.tree).toBe((await treeSnapshot(dir)).digest);
    expect(asked.recorder.evidence()[0]?.tree).not.toBe(beforeDigest);
  });
});
