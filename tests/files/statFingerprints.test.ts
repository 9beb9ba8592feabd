import { mkdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { StatFingerprints, statOf, statTree } from '../../shared/core/files/statFingerprints.js';
import { HostFilesWatch } from '../../shared/policy/permissions/hostFilesWatch.js';
import { tempDir } from '../support/tempDir.js';

/** Writes `file` with its mtime and atime at a whole second, which utimes can put back exactly (it takes no nanoseconds). */
function writeAtSecond(file: string, text: string): void {
  writeFileSync(file, text);
  utimesSync(file, 1_700_000_000, 1_700_000_000);
}

/** Rewrites `file` (made by writeAtSecond) in place, the same size, its times put back, once the kernel's clock has moved past its ctime. */
async function rewriteInPlace(file: string, text: string): Promise<void> {
  const before = statSync(file, { bigint: true });
  for (;;) {
    writeAtSecond(file, text);
    const after = statSync(file, { bigint: true });
    expect([after.size, after.mtimeNs, after.ino]).toEqual([before.size, before.mtimeNs, before.ino]);
    if (after.ctimeNs !== before.ctimeNs) return;
    await sleep(5); // the same clock tick: try again once it moved
  }
}

/** One look at `file` through the cache, counting what it had to read. */
function look(cache: StatFingerprints, file: string, startedNs: bigint, reads: { count: number }): string {
  return cache.fingerprint(
    file,
    statOf(file)!,
    () => {
      reads.count += 1;
      return `read ${reads.count}`;
    },
    startedNs,
  );
}

describe('fingerprints kept by stat', () => {
  it('reads a settled file once, and again once anything wrote it, even in place with its size and times put back', async () => {
    const file = path.join(tempDir('orca-statfp-'), 'record.json');
    writeAtSecond(file, '{"a":1}\n');
    const cache = new StatFingerprints();
    const reads = { count: 0 };
    // Looks taken well after its last change: it is settled.
    const later = statOf(file)!.ctimeNs + 5_000_000_000n;
    expect(look(cache, file, later, reads)).toBe('read 1');
    expect(look(cache, file, later, reads)).toBe('read 1');
    await rewriteInPlace(file, '{"a":2}\n');
    const after = statOf(file)!.ctimeNs + 5_000_000_000n;
    expect(look(cache, file, after, reads)).toBe('read 2');
    expect(reads.count).toBe(2);
  });

  it('reads again at every look a file changed close to the look before (a write in the same clock tick would leave its stat)', () => {
    const file = path.join(tempDir('orca-statfp-'), 'card.md');
    writeFileSync(file, 'remember\n');
    const cache = new StatFingerprints();
    const reads = { count: 0 };
    const now = statOf(file)!.ctimeNs;
    look(cache, file, now, reads);
    look(cache, file, now, reads);
    expect(reads.count).toBe(2);
  });

  it('lists a tree without its folders, and a missing root as nothing', () => {
    const root = tempDir('orca-statfp-');
    mkdirSync(path.join(root, 'a', 'b'), { recursive: true });
    writeFileSync(path.join(root, 'a', 'one'), '1');
    writeFileSync(path.join(root, 'a', 'b', 'two'), '2');
    expect([...statTree(root)].map(([file]) => path.relative(root, file)).sort()).toEqual(['a/b/two', 'a/one']);
    expect([...statTree(path.join(root, 'missing'))]).toEqual([]);
  });

  it('leaves the host files watch naming a run record rewritten in place with its size and times put back', async () => {
    const base = tempDir('orca-statfp-');
    const orcaHome = path.join(base, 'orca-home');
    const record = path.join(orcaHome, 'runs', 'r1.json');
    mkdirSync(path.dirname(record), { recursive: true });
    writeAtSecond(record, '{"status":"PASS"}\n');
    mkdirSync(path.join(base, 'home', '.claude'), { recursive: true });
    // Older than a second at the look: settled, so that look keeps its fingerprint by its stat.
    await sleep(1_100);
    const watch = HostFilesWatch.open({ home: path.join(base, 'home'), userClaudeDir: path.join(base, 'home', '.claude'), orcaHome });
    expect(watch.check()).toEqual([]);
    await rewriteInPlace(record, '{"status":"FAIL"}\n');
    expect(watch.check()).toEqual([{ path: record, kind: 'orca', stops: false }]);
    expect(watch.check()).toEqual([]);
  });
});
