import { type BigIntStats, type Dirent, lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';

/**
 * A file whose ctime is this close to the look that fingerprinted it is read again at the next
 * look: a write in the same clock tick (the kernel stamps times from a coarse clock) leaves its
 * ctime, and a same-sized one its whole stat, as they were. git's "racily clean" rule, with room.
 */
const RACY_NS = 1_000_000_000n;

/**
 * Fingerprints of files taken once and kept while each file's stat says nobody wrote it since:
 * every write or replacement of a file sets its ctime to the time of the change, which no program
 * can set back (`utimes` sets the ctime too), besides whatever else it changes (inode, size,
 * mtime, mode); so a file with the stat it had when it was fingerprinted, settled then (RACY_NS),
 * holds what it held. git trusts its index's stat data the same way.
 *
 * Why: the host files watch (hostFilesWatch.ts) looks after every call that may write, and orca's
 * state in it (run records, memory cards) grows with every run: 1,000 run records cost each look
 * 33 ms read and hashed, against 0.4 ms with none.
 */
export class StatFingerprints {
  private readonly kept = new Map<string, { stat: string; fingerprint: string }>();

  /**
   * The file's fingerprint: the one kept for it while its stat is unchanged, else `take()`, kept
   * when the file was settled at `lookStartedNs` (the look's start, in ns since the epoch).
   */
  fingerprint(file: string, stat: BigIntStats, take: () => string, lookStartedNs: bigint): string {
    const key = statKey(stat);
    const kept = this.kept.get(file);
    if (kept?.stat === key) return kept.fingerprint;
    const fingerprint = take();
    if (stat.ctimeNs >= lookStartedNs - RACY_NS) {
      this.kept.delete(file);
      return fingerprint;
    }
    // Bounded: a file gone is never asked for again, and would stay kept.
    if (this.kept.size >= MAX_KEPT) this.kept.clear();
    this.kept.set(file, { stat: key, fingerprint });
    return fingerprint;
  }
}

/** Files kept at most (a few hundred bytes each). */
const MAX_KEPT = 20_000;

/**
 * This process's fingerprints: every watch of it shares them (a key names the file's stat, so
 * one watch's is as good as another's), so a job's watch opening reads only what changed since
 * the last job's looked.
 */
export const processFingerprints = new StatFingerprints();

function statKey(stat: BigIntStats): string {
  return `${stat.dev}:${stat.ino}:${stat.mode}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
}

/** The path's stat without following a link; undefined when nothing is there. */
export function statOf(file: string): BigIntStats | undefined {
  try {
    return lstatSync(file, { bigint: true, throwIfNoEntry: false });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    throw error;
  }
}

/**
 * Every entry that is not a folder at and under `root`, links not followed, with its stat. A
 * folder that went while it was read has nothing under it: what is left is read by the next look.
 */
export function* statTree(root: string): Generator<[string, BigIntStats]> {
  const stat = statOf(root);
  if (stat === undefined) return;
  if (stat.isDirectory()) yield* statFolder(root);
  else yield [root, stat];
}

/** statTree below a folder: its folders walked by their entries' types, with no stat of their own. */
function* statFolder(dir: string): Generator<[string, BigIntStats]> {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return;
    throw error;
  }
  for (const entry of entries) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      yield* statFolder(file);
      continue;
    }
    const stat = statOf(file);
    if (stat === undefined) continue;
    // Made a folder since the listing: walked as one.
    if (stat.isDirectory()) yield* statFolder(file);
    else yield [file, stat];
  }
}
