import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { StartTrace } from '../runtime/startTrace.js';
import { gitAt } from './git.js';
import { takePoolCheck } from './poolCheck.js';
import { headOf, READY, STATE_FILE } from './poolFolder.js';
import { withRepoLock } from './repoLock.js';
import { deleteBranchLocked, removeWorktree, removeWorktreeLocked } from './worktree.js';
import { moveWorktree } from './worktreeMove.js';

/** A worktree taken from the pool (WorktreePool.takeChecked). */
export interface PooledWorktree {
  /** The commit it is at: the job's base. */
  start: string;
  /**
   * The take's check found it exactly at `start` (its `git status` of changes, untracked and
   * ignored files; of the tracked files alone when no folder gained an entry since the background
   * status found none: poolCheck.ts), and orca's only git command since wrote a ref (no checkout,
   * hooks off): the worktree is known to be exactly its commit, and a watch opening on it need
   * not ask git again about what nobody wrote.
   */
  checkedClean: boolean;
  /**
   * Set when the take's check of the tracked files was left running (TakeOptions.deferCheck):
   * settles to why the worktree is not exactly `start` (nothing may then run or be read in it),
   * or to undefined once it is known to be; never rejects. Until then `checkedClean` is a claim.
   */
  pendingCheck?: Promise<string | undefined>;
}

/** How a take checks the worktree it takes (WorktreePool.takeChecked). */
export interface TakeOptions {
  trace?: StartTrace;
  /**
   * The check of the tracked files' bytes, a `git status` stat of every file (the most of a take:
   * 30–50 ms on 20,000 files), may run on beside the job's start, for a worktree already at its
   * base whose folders show no entry made since the pool's check (poolCheck.ts): the take returns
   * once its branch is made, with the check in `pendingCheck`. The caller awaits it before
   * anything runs in the tree or reads from it (workers/workspace/jobWorkspace.ts, `startCheck`).
   */
  deferCheck?: boolean;
}

/** A ready worktree moved out of the pool to a job's folder, to be checked and branched there. */
export interface TakenWorktree {
  repo: string;
  /** Its name in the pool, for the log. */
  got: string;
  /** Where it is now: the job's worktree folder. */
  dir: string;
  /** The job's base commit. */
  base: string;
  /** The job's branch, made there; detached without one. */
  branch: string | undefined;
  log: (line: string) => void;
}

/**
 * A ready worktree of the pool in `folder` moved to `dir`, under the repository's lock so that no
 * other take gets it: one already at `base` first (it needs no checkout); one that cannot be moved
 * is removed and the next tried. Its name in the pool, or undefined when none is ready (or the
 * pool is gone).
 */
export async function moveReady(
  repo: string,
  folder: string,
  dir: string,
  base: string,
  log: (line: string) => void,
): Promise<string | undefined> {
  return withRepoLock(repo, async () => {
    if (!existsSync(path.join(folder, STATE_FILE))) return undefined;
    const ready = readdirSync(folder).filter((name) => READY.test(name));
    // One already at the job's base first: it needs no checkout at all.
    ready.sort((a, b) => Number(headOf(path.join(folder, b)) === base) - Number(headOf(path.join(folder, a)) === base));
    for (const name of ready) {
      mkdirSync(path.dirname(dir), { recursive: true });
      try {
        await moveWorktree(repo, path.join(folder, name), dir);
        return name;
      } catch (error) {
        log(`pooled worktree ${name} could not be moved to ${dir}, removed: ${oneLine(error)}`);
        await removeWorktreeLocked(repo, path.join(folder, name));
      }
    }
    return undefined;
  });
}

/**
 * A moved worktree checked clean, brought to `base` and put on `branch`; undefined when it was
 * not clean or could not be brought there (then it is removed, and the caller takes another).
 */
export async function checkAndBranch(take: TakenWorktree, options: TakeOptions = {}): Promise<PooledWorktree | undefined> {
  const { dir, base, branch } = take;
  // No folder gained an entry since the background check saw no untracked or ignored one
  // (poolCheck.ts): git is asked about the tracked files alone; else about the whole tree.
  const walked = takePoolCheck(dir) !== undefined;
  const atBase = walked && headOf(dir) === base;
  // Already at the base, the branch is made while the check runs (branchBesideCheck).
  const beside = atBase && branch !== undefined ? branchBesideCheck(dir, branch) : undefined;
  // Without optional locks beside anything else: the index is the switch's, and the job's once the take returns.
  const deferred = atBase && options.deferCheck === true;
  const checking = inspect(dir, deferred ? besideGit : atBase ? quietGit : undefined, { untracked: !walked }).catch((error: unknown) => ({
    head: undefined,
    dirty: `git cannot read it (${oneLine(error)})`,
  }));
  if (deferred) return branchedBesideCheck(take, beside, checking);
  const made = await beside;
  // A HEAD that moved off the base while the branch was made beside the check: not handed out either.
  const dirty = notExactly(await checking, base, made !== undefined);
  if (dirty !== undefined) {
    take.log(`pooled worktree ${take.got} was not clean, removed: ${dirty}`);
    await dropTaken(take, made);
    return undefined;
  }
  options.trace?.mark('take_checked');
  try {
    if (made && !made.ok) throw made.error;
    // Cost in proportion to what differs between the two commits.
    const found = await checking;
    if (found.head !== base) await gitAt(dir).raw(['checkout', '--quiet', '--detach', base]);
    if (branch && !made) await gitAt(dir).raw(['switch', '--quiet', '--create', branch]);
    // A checkout wrote files after the check: then the check is of another commit's tree.
    return { start: base, checkedClean: found.head === base };
  } catch (error) {
    return notBrought(take, error);
  }
}

/**
 * The deferred take (TakeOptions.deferCheck): returned once the branch is made, the check of the
 * tracked files still running. A branch that could not be made ends the take as before.
 */
async function branchedBesideCheck(
  take: TakenWorktree,
  beside: Promise<Branched> | undefined,
  checking: Promise<Inspected>,
): Promise<PooledWorktree | undefined> {
  const made = await beside;
  if (made && !made.ok) {
    await checking;
    return notBrought(take, made.error);
  }
  const pendingCheck = checking.then((found) => {
    const dirty = notExactly(found, take.base, made !== undefined);
    if (dirty !== undefined) take.log(`pooled worktree ${take.got} was not clean when its job had begun: ${dirty}`);
    return dirty;
  });
  return { start: take.base, checkedClean: true, pendingCheck };
}

type Branched = { ok: true } | { ok: false; error: unknown };
type Inspected = { head?: string; dirty?: string };

/** Why an inspected worktree is not exactly `base` (a branch made beside the check counts its HEAD moving); undefined when it is. */
function notExactly(found: Inspected, base: string, branchedBeside: boolean): string | undefined {
  if (found.dirty !== undefined) return found.dirty;
  return branchedBeside && found.head !== base ? `its HEAD moved off ${base.slice(0, 12)} during the take` : undefined;
}

/** A taken worktree that is not handed out: removed, with the branch made beside its check (made for it). */
async function dropTaken({ repo, dir, branch }: TakenWorktree, made: Branched | undefined): Promise<void> {
  await removeWorktree(repo, dir);
  if (made?.ok && branch) await deleteBranchLocked(repo, branch);
}

/** A taken worktree that could not be brought to its base or branch: removed; a branch that is there already is the caller's to hear. */
async function notBrought(take: TakenWorktree, error: unknown): Promise<undefined> {
  take.log(`pooled worktree ${take.got} could not be brought to ${take.base.slice(0, 12)}, removed: ${oneLine(error)}`);
  await removeWorktree(take.repo, take.dir);
  // A branch that is there already fails the same way in a new worktree: the caller hears it.
  if (take.branch && /already exists/.test(oneLine(error))) throw error;
  return undefined;
}

/**
 * `git switch -c` in a worktree already at its base, run while the take's check of the tracked
 * files runs: to the same commit, the switch writes the branch's ref, HEAD and the index (the same
 * entries), never a file of the tree (a changed one would be carried over as it is), so the check
 * sees the same tree whichever ends first, and a dirty one is still removed with its new branch.
 * The check runs without optional locks (quietGit): git's own index lock is the switch's alone.
 */
function branchBesideCheck(dir: string, branch: string): Promise<Branched> {
  return gitAt(dir)
    .raw(['switch', '--quiet', '--create', branch])
    .then(
      () => ({ ok: true as const }),
      (error: unknown) => ({ ok: false as const, error }),
    );
}

/** git without optional locks: a status that never writes the index (the settled one is kept as it is). */
function quietGit(at: string, args: string[]): Promise<string> {
  return gitAt(at, undefined, { GIT_OPTIONAL_LOCKS: '0' }).raw(args);
}

/**
 * quietGit on one thread (no preloaded index): a check left running beside the job's start keeps
 * off the cores the start needs (measured on 2 cores: with git's 20 stat threads the start ran
 * 87 ms to its first request, the check overlapping only half of its 50 ms).
 */
function besideGit(at: string, args: string[]): Promise<string> {
  return quietGit(at, ['-c', 'core.preloadIndex=false', ...args]);
}

/**
 * A worktree's commit and what keeps it from being handed out (`dirty`, unset when it is exactly
 * its commit): any change, untracked or ignored file, from a real `git status` (one process for
 * both). Without `untracked`, the tracked files alone: for a take whose folders show no entry
 * made since the background check found none (poolCheck.ts).
 */
export async function inspect(
  dir: string,
  run = (at: string, args: string[]) => gitAt(at).raw(args),
  { untracked = true } = {},
): Promise<Inspected> {
  const out = await run(dir, [
    'status',
    '--porcelain=v2',
    '--branch',
    ...(untracked ? ['--untracked-files=all', '--ignored'] : ['--untracked-files=no']),
  ]);
  const lines = out.split('\n').filter(Boolean);
  const oid = lines.find((line) => line.startsWith('# branch.oid '))?.slice('# branch.oid '.length);
  const head = oid && /^[0-9a-f]{40}$/.test(oid) ? oid : undefined;
  const changed = lines.filter((line) => !line.startsWith('#'));
  if (changed.length > 0) return { head, dirty: changed.slice(0, 3).join(', ') + (changed.length > 3 ? ', …' : '') };
  return head ? { head } : { dirty: 'it has no commit checked out' };
}

function oneLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).trim().replace(/\s*\n\s*/g, '; ');
}
