import { existsSync, mkdirSync, rmdirSync, rmSync, statfsSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { branchExists, deleteBranch, gitAt, resolveCommit } from './git.js';
import { plainAdminFolder } from './plainWorktree.js';
import { commonGitDir, withRepoLock } from './repoLock.js';
import { setViewWritable, viewProblem } from './viewTree.js';

export interface WorktreeSpec {
  /** The repository (any folder inside it). */
  repo: string;
  /** Where the worktree goes; must not exist yet. */
  dir: string;
  /** The commit it starts from: named by the coordinator, never whatever HEAD happens to be. */
  base: string;
  /** A new branch to create at `base`; omitted for a detached, read-only view. */
  branch?: string;
  /** Make the worktree without checking any file out (a sparse checkout chooses the files after). */
  noCheckout?: boolean;
}

/**
 * `git worktree add -b <branch> <dir> <base>` (or `--detach`), serialised per repository.
 * Returns the commit the worktree starts at.
 *
 * Only the worktree's record is made under the repository's lock (`--no-checkout`, which writes
 * no file of the tree); its files are checked out after, outside it, as `git worktree add` would
 * (its `reset --hard`, here `checkout --force`: the same files, index and stat data). The lock
 * guards git's shared records (`worktrees/`, the branch, `config.lock`), not a worktree's own
 * index and files: held through the checkout, it made the adds of a run's first wave wait for
 * each other's checkouts, one after another (8 adds of a 20,000-file tree: the last done at 3 s).
 */
export async function addWorktree(spec: WorktreeSpec): Promise<string> {
  // A full sha needs no lookup first: `git worktree add` refuses one that is not a commit.
  const base = /^[0-9a-f]{40}$/.test(spec.base) ? spec.base : await resolveCommit(spec.repo, spec.base);
  mkdirSync(path.dirname(spec.dir), { recursive: true });
  await withRepoLock(spec.repo, () => addRecord(spec, base));
  if (!spec.noCheckout) await checkOutFiles(spec, base);
  return base;
}

/** The worktree's record and its HEAD at `base` (on its new branch, or detached), no file checked out; under the repository's lock. */
async function addRecord(spec: WorktreeSpec, base: string): Promise<void> {
  if (existsSync(spec.dir)) throw new Error(`worktree folder ${spec.dir} already exists; remove it (orca clean) or use another task id.`);
  const args = spec.branch
    ? ['worktree', 'add', '--quiet', '--no-checkout', '-b', spec.branch, spec.dir, base]
    : ['worktree', 'add', '--quiet', '--no-checkout', '--detach', spec.dir, base];
  try {
    await gitAt(spec.repo).raw(args);
  } catch (error) {
    // git refuses a branch that is there already (asked here, not before: every add holds this lock).
    if (spec.branch && /a branch named .* already exists/i.test(oneLine(error))) {
      throw new Error(`branch ${spec.branch} already exists in ${spec.repo}.`, { cause: error });
    }
    // git removes a worktree it could not finish, but keeps the branch it made for it.
    if (spec.branch && (await branchExists(spec.repo, spec.branch))) await deleteBranch(spec.repo, spec.branch);
    throw couldNotCheckOut(spec, base, error);
  }
}

/**
 * The files of the worktree's HEAD checked out, and its index written. One that fails leaves
 * nothing behind, as a failed `git worktree add` does: the worktree is removed, and the branch
 * made for it deleted.
 */
async function checkOutFiles(spec: WorktreeSpec, base: string): Promise<void> {
  try {
    await gitAt(spec.dir).raw(['checkout', '--quiet', '--force']);
  } catch (error) {
    await withRepoLock(spec.repo, async () => {
      await removeWorktreeLocked(spec.repo, spec.dir);
      if (spec.branch && (await branchExists(spec.repo, spec.branch))) await deleteBranch(spec.repo, spec.branch);
    });
    throw couldNotCheckOut(spec, base, error);
  }
}

function couldNotCheckOut(spec: WorktreeSpec, base: string, error: unknown): Error {
  return new Error(
    `git could not check out ${base.slice(0, 12)} into ${spec.dir}: ${oneLine(error)}${diskNote(path.dirname(spec.dir), oneLine(error))}`,
    { cause: error },
  );
}

function oneLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).trim().replace(/\s*\n\s*/g, '; ');
}

/**
 * git says only "unable to write file" when the disk fills up, and removes what it checked out,
 * so the space looks free again afterwards: say how much there is, against the size of the files.
 */
function diskNote(dir: string, message: string): string {
  if (!/unable to write|no space left/i.test(message)) return '';
  try {
    const fs = statfsSync(dir);
    const free = Math.floor((fs.bavail * fs.bsize) / 1024);
    return ` (the file system holding ${dir} has ${free} KiB free: if the files do not fit, free some space or set ORCA_HOME to a folder on a larger disk)`;
  } catch {
    return '';
  }
}

/**
 * A detached checkout of `base` for the read-only agents of one run that need that commit: made
 * once, then reused, each time checked clean against its commit first. A view that moved or whose
 * files changed (an unsandboxed agent, a person) is rebuilt: `rebuilt` says why. With
 * `readOnlyOnDisk` (no sandbox keeps agents from writing it) its files are made read-only.
 */
export async function ensureView(
  repo: string,
  dir: string,
  base: string,
  options: { readOnlyOnDisk?: boolean } = {},
): Promise<{ commit: string; rebuilt?: string }> {
  const commit = await resolveCommit(repo, base);
  mkdirSync(path.dirname(dir), { recursive: true });
  let rebuilt: string | undefined;
  await withRepoLock(repo, async () => {
    if (existsSync(dir)) {
      rebuilt = await viewProblem(dir, commit).catch((error: unknown) => `it is no working view (${String(error).trim()})`);
      if (rebuilt === undefined) {
        if (options.readOnlyOnDisk) setViewWritable(dir, false);
        return;
      }
      setViewWritable(dir, true);
      try {
        await gitAt(repo).raw(['worktree', 'remove', '--force', '--force', dir]);
      } catch {
        rmSync(dir, { recursive: true, force: true });
      }
      await gitAt(repo).raw(['worktree', 'prune']);
    }
    await gitAt(repo).raw(['worktree', 'add', '--quiet', '--detach', dir, commit]);
    if (options.readOnlyOnDisk) setViewWritable(dir, false);
  });
  return { commit, ...(rebuilt !== undefined ? { rebuilt } : {}) };
}

/** Checks out an existing branch in a new worktree (a retry continuing a dead attempt's commits). */
export async function addWorktreeForBranch(repo: string, dir: string, branch: string): Promise<string> {
  mkdirSync(path.dirname(dir), { recursive: true });
  await withRepoLock(repo, async () => {
    if (existsSync(dir)) throw new Error(`worktree folder ${dir} already exists.`);
    await gitAt(repo).raw(['worktree', 'add', '--quiet', dir, branch]);
  });
  return resolveCommit(repo, branch);
}

/**
 * Removes a worktree and its folder, even with uncommitted changes in it. git's record of it goes
 * with a removal that succeeds; only a folder git could not remove, or one already gone,
 * leaves a record for `worktree prune` to take (one git process fewer for each job's worktree).
 */
export async function removeWorktree(repo: string, dir: string): Promise<void> {
  await withRepoLock(repo, () => removeWorktreeLocked(repo, dir));
}

/**
 * removeWorktree for a caller already holding the repository's lock. A plain linked worktree
 * (plainWorktree.ts) is removed as `git worktree remove --force --force` removes one, without its
 * process: its folder, then its admin folder, then the repository's `worktrees/` folder if that
 * left it empty (builtin/worktree.c: delete_git_work_tree, delete_git_dir,
 * delete_worktrees_dir_if_empty), when its tree is small (fewFiles). A run's end removes every
 * task's worktree one after another under the lock: 32 of them took 700 ms of `git worktree remove`
 * on a slow 2-core host. Any other worktree is git's to remove.
 */
export async function removeWorktreeLocked(repo: string, dir: string): Promise<void> {
  if (existsSync(dir)) {
    const admin = plainAdminFolder(dir, await commonGitDir(repo));
    if (admin && fewFiles(admin)) {
      await rm(dir, { recursive: true, force: true });
      await rm(admin, { recursive: true, force: true });
      removeIfEmpty(path.dirname(admin));
      return;
    }
    try {
      await gitAt(repo).raw(['worktree', 'remove', '--force', '--force', dir]);
      return;
    } catch (error) {
      // A repository's own folder (its `.git` a folder) is never orca's to delete, whatever named it.
      if (statSync(path.join(dir, '.git'), { throwIfNoEntry: false })?.isDirectory())
        throw new Error(`${dir} is a repository's main worktree, not one orca made: it was not removed`, { cause: error });
      // Not (or no longer) a registered worktree: the folder is still ours to delete.
      rmSync(dir, { recursive: true, force: true });
    }
  }
  await gitAt(repo).raw(['worktree', 'prune']);
}

/**
 * Whether a worktree's index is small enough (about 750 files) that removing its tree file by file
 * from here costs less than git's process. Measured on a slow 2-core host: git's removal is about
 * 17 ms plus 8 µs a file (20,000 files: 170 ms), Node's (fs.promises.rm, off the event loop) 20 µs
 * a file (20,000 files: 400-500 ms). A worktree with no index (checked out with none) has no files.
 */
function fewFiles(admin: string): boolean {
  return (statSync(path.join(admin, 'index'), { throwIfNoEntry: false })?.size ?? 0) <= SMALL_INDEX_BYTES;
}

const SMALL_INDEX_BYTES = 64 * 1024;

function removeIfEmpty(folder: string): void {
  try {
    rmdirSync(folder);
  } catch (error) {
    if (!['ENOTEMPTY', 'EEXIST', 'ENOENT'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
  }
}

/**
 * Deletes a branch under the repository's lock, for a caller that does not hold it: `git branch -D`
 * reads every worktree's HEAD, and a `worktree add` running beside it (under the lock) has an entry
 * half written that git dies on ("failed to read .git/worktrees/NAME/commondir": a dead attempt's
 * branch deleted while another job's worktree was added, tests/workers/workerDeath.test.ts in CI).
 */
export async function deleteBranchLocked(repo: string, branch: string): Promise<void> {
  await withRepoLock(repo, () => deleteBranch(repo, branch));
}

export async function pruneWorktrees(repo: string): Promise<void> {
  await withRepoLock(repo, async () => {
    await gitAt(repo).raw(['worktree', 'prune']);
  });
}

export interface WorktreeInfo {
  dir: string;
  head?: string;
  branch?: string;
}

export async function listWorktrees(repo: string): Promise<WorktreeInfo[]> {
  const out = await gitAt(repo).raw(['worktree', 'list', '--porcelain']);
  const list: WorktreeInfo[] = [];
  let current: WorktreeInfo | undefined;
  for (const line of out.split('\n')) {
    if (line.startsWith('worktree ')) {
      current = { dir: line.slice('worktree '.length) };
      list.push(current);
    } else if (current && line.startsWith('HEAD ')) current.head = line.slice(5);
    else if (current && line.startsWith('branch ')) current.branch = line.slice(7).replace(/^refs\/heads\//, '');
  }
  return list;
}
