import { rmSync } from 'node:fs';
import path from 'node:path';
import { ORCA_BRANCHES } from '../../core/git/orcaBranch.js';
import { RefFiles } from '../../core/git/refFiles.js';
import { watchGit } from './worktreeChanges.js';

/**
 * The repository's refs as a job found them, outside orca's own namespaces: the user's branches,
 * tags, remotes, stash and notes. A worktree shares them with the user's checkout and every other
 * worktree, so agent code can move them (`git update-ref`, `git branch -f`, a write to a ref file,
 * a line in packed-refs). After each call, every one that moved, appeared or went is put back by
 * value (`git update-ref`, which keeps packed and loose refs consistent) and named. orca's own
 * refs (`refs/heads/orca/`, `refs/orca/`) move during a run, by the coordinator and its workers:
 * the coordinator merges a task's reported commit, never whatever its branch points at, and moves
 * the integration branch only by compare-and-swap, so they are not watched here.
 */
export class RefGuard {
  private constructor(
    private readonly root: string,
    private readonly start: Map<string, string>,
  ) {}

  /** The guard for the repository of the worktree at `root`. */
  static async open(root: string): Promise<RefGuard> {
    return new RefGuard(root, await userRefs(root));
  }

  /** Puts back every user ref that changed since the start; each one that had, and whether it could be. */
  async restore(): Promise<{ path: string; restored: boolean; was?: string; now?: string }[]> {
    const now = await userRefs(this.root);
    const changed: { path: string; restored: boolean; was?: string; now?: string }[] = [];
    for (const name of new Set([...this.start.keys(), ...now.keys()])) {
      const was = this.start.get(name);
      const found = now.get(name);
      if (was === found) continue;
      changed.push({ path: name, restored: await this.putBack(name, was, found), was, now: found });
    }
    return changed;
  }

  private async putBack(name: string, was: string | undefined, found: string | undefined): Promise<boolean> {
    try {
      // A loose file of garbage (a broken ref) is not listed: it goes first, so update-ref can write the ref.
      if (found === undefined) rmSync(path.join(commonDirOf(this.root), name), { force: true });
      await watchGit(this.root, was === undefined ? ['update-ref', '-d', name] : ['update-ref', name, was]);
      return true;
    } catch {
      return false; // Said in the finding: the ref could not be put back.
    }
  }
}

/** orca's own namespaces, which its runs move. */
const ORCA_REFS = [ORCA_BRANCHES, 'refs/orca/'];

async function userRefs(root: string): Promise<Map<string, string>> {
  const files = RefFiles.open(root);
  const all = files
    ? files.list(['refs/'], ORCA_REFS)
    : new Map(
        (await watchGit(root, ['for-each-ref', '--format=%(refname) %(objectname)', 'refs/']))
          .split('\n')
          .filter(Boolean)
          .map((line) => line.split(' ') as [string, string]),
      );
  for (const name of [...all.keys()]) if (ORCA_REFS.some((prefix) => name.startsWith(prefix))) all.delete(name);
  return all;
}

function commonDirOf(root: string): string {
  const files = RefFiles.open(root);
  if (!files) throw new Error(`${root} keeps its refs in a reftable: a broken ref there cannot be removed as a file`);
  return files.commonDir;
}
