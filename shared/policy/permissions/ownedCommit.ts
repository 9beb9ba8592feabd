import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ByCommit } from '../../core/git/byCommit.js';
import { gitAt, runGit } from '../../core/git/git.js';
import { RefFiles } from '../../core/git/refFiles.js';
import { settled } from '../../core/runtime/settled.js';
import type { ChangeRefusal, OwnedPaths } from './ownedPaths.js';
import { changedSince } from './worktreeChanges.js';

/** No fsmonitor or hooks from the repository's config while the host commits an agent's tree. */
const SAFE = ['-c', 'core.fsmonitor=false', '-c', 'core.hooksPath=/dev/null'];

export interface OwnedCommit {
  /** The new commit on the worktree's branch, or undefined when no owned change was there. */
  commit?: string;
  /** Changes left out of it: outside the owned paths, or guarded. */
  left: ChangeRefusal[];
}

export interface OwnedCommitOptions {
  start: string;
  owned: OwnedPaths;
  linked: readonly string[];
  branch: string;
  /**
   * Every path changed since `start`, as a look the caller holds found it (the Report's, where
   * nothing can have written since: reportLook.ts), instead of asking git here. Only what the task
   * may commit of it is taken, by literal path, as from the commit's own look.
   */
  changed?: readonly string[];
}

/**
 * Commits exactly the owned changes of a worktree on its branch, as one commit on `start`: the
 * changed files the task owns (guarded ones only where owned literally, after the host's watch
 * admitted them), built in an index of its own so nothing the agent staged or committed itself
 * comes along. The branch then points at that commit (or back at `start` when there was none),
 * and the worktree's own index follows it; the files on disk are left as they are.
 */
export async function commitOwned(dir: string, message: string, options: OwnedCommitOptions): Promise<OwnedCommit> {
  const made = await ownedCommitObject(dir, message, options);
  await pointBranchAt(dir, options.branch, made.commit ?? options.start);
  return made;
}

/**
 * The first half of commitOwned: the commit object of the owned changes, the branch not moved yet
 * (a caller can check the commit while the branch moves). Refuses a worktree whose HEAD is not the
 * task's branch.
 */
export async function ownedCommitObject(dir: string, message: string, options: OwnedCommitOptions): Promise<OwnedCommit> {
  const git = gitAt(dir);
  // HEAD and the git folder from their files, as git finds them (the `.git` pointer), where the refs are in files.
  const files = RefFiles.open(dir);
  await onTaskBranch(dir, files, options.branch);
  // An index of its own, in the worktree's git folder (the host's, never the agent's tree).
  const gitDir = files?.gitDir ?? path.resolve(dir, (await git.raw([...SAFE, 'rev-parse', '--git-dir'])).trim());
  const scratch = mkdtempSync(path.join(gitDir, 'orca-owned-'));
  try {
    const indexed = gitAt(dir, undefined, { GIT_INDEX_FILE: path.join(scratch, 'index') });
    // Independent reads, asked at once (this is on the way from the agent's Report to its result),
    // all settled before the scratch index is removed.
    const [changed, , startTree] = await settled([
      options.changed ? withoutLinked(options.changed, options.linked) : changedSince(dir, options.start, options.linked),
      seedStartIndex(indexed, scratch, options.start, files?.commonDir ?? gitDir),
      treeOf(dir, options.start),
    ]);
    const left: ChangeRefusal[] = [];
    const take: string[] = [];
    for (const file of changed) {
      const refusal = options.owned.committable(file);
      if (refusal) left.push(refusal);
      else take.push(file);
    }
    if (take.length === 0) return { left };
    await indexed.raw([...SAFE, 'add', '--all', '--', ...take.map((file) => `:(literal)${file}`)]);
    const tree = (await indexed.raw([...SAFE, 'write-tree'])).trim();
    if (tree === startTree) return { left };
    return { commit: (await git.raw([...SAFE, 'commit-tree', tree, '-p', options.start, '-m', message])).trim(), left };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * The start commit's index as `git read-tree START` writes it into a new file: no stat data, no
 * sparse bits (read-tree sets none in a fresh index), so its bytes depend on the tree and the
 * repository's index settings alone, and the jobs of a wave share their start. Kept by commit and
 * repository, the newest one only (20,000 files: a 2 MB index), each commit's scratch index after
 * the first is written from it instead of by git (read-tree of 20,000 files: 24 ms; the write:
 * 2). git writes a new index whole even under `core.splitIndex` (it splits only an index that
 * exists: tests/redteam/ownedCommit.test.ts commits through a kept one there); were anything
 * written beside it in the scratch folder, it is not kept.
 */
const startIndexes = new ByCommit<Buffer | undefined>(1);

async function seedStartIndex(indexed: ReturnType<typeof gitAt>, scratch: string, start: string, repo: string): Promise<void> {
  const index = path.join(scratch, 'index');
  let readHere = false;
  const kept = await startIndexes
    .get(
      start,
      async () => {
        readHere = true;
        await indexed.raw([...SAFE, 'read-tree', start]);
        return readdirSync(scratch).length === 1 ? readFileSync(index) : undefined;
      },
      repo,
    )
    // Another commit's read-tree that failed is that commit's failure: this one reads its own.
    .catch((error: unknown) => {
      if (readHere) throw error;
      return undefined;
    });
  if (readHere) return;
  if (kept) writeFileSync(index, kept);
  else await indexed.raw([...SAFE, 'read-tree', start]);
}

/** A look's changes but for what orca linked in (as changedSince leaves them out): the caller's look may have known a different list. */
function withoutLinked(changed: readonly string[], linked: readonly string[]): string[] {
  return changed.filter((file) => !linked.some((name) => file === name || file.startsWith(`${name}/`)));
}

/** The second half of commitOwned: the task's branch at `commit`, and the worktree's own index following it. */
export async function pointBranchAt(dir: string, branch: string, commit: string): Promise<void> {
  const ref = `refs/heads/${branch}`;
  const git = gitAt(dir, undefined, { GIT_REFLOG_ACTION: REFLOG_MESSAGE });
  // Where HEAD is the branch (read from its file), one reset moves both, the branch and the index:
  // one process fewer on the way from the Report to the result. Elsewhere the branch is moved by name.
  const head = RefFiles.open(dir)?.head();
  if (head?.kind !== 'symbolic' || head.target !== ref) await git.raw([...SAFE, 'update-ref', '-m', REFLOG_MESSAGE, ref, commit]);
  await resetIndexTo(dir, commit);
}

/**
 * The worktree's index at `commit`, its unchanged entries' stat data kept (`--no-refresh`): a
 * refresh would stat every tracked file (20,000 files: 67 ms beside 16 without), only for the
 * files of the commit, whose stat a later status takes again. A git before 2.36 knows no
 * `--no-refresh` (usage error 129) and refreshes nothing under `--quiet` anyway: asked without it.
 */
async function resetIndexTo(dir: string, commit: string): Promise<void> {
  const reset = (options: string[]) =>
    runGit(dir, [...SAFE, 'reset', '--quiet', '--mixed', ...options, commit], { GIT_REFLOG_ACTION: REFLOG_MESSAGE });
  let done = await reset(['--no-refresh']);
  if (done.code === 129) done = await reset([]);
  if (done.code !== 0)
    throw new Error(`git reset of ${dir} to ${commit} failed (exit ${done.code}): ${(done.stderr || done.stdout).trim()}`);
}

const REFLOG_MESSAGE = 'orca: the owned changes';

/** Each start commit's tree: every commit compares its tree with its start's, and a wave of jobs shares its start. */
const startTrees = new ByCommit<string>(32);

function treeOf(dir: string, commit: string): Promise<string> {
  return startTrees.get(commit, () =>
    gitAt(dir)
      .raw([...SAFE, 'rev-parse', `${commit}^{tree}`])
      .then((out) => out.trim()),
  );
}

/** The task's branch as the host named it must be the worktree's HEAD, never whatever an agent pointed it at. */
async function onTaskBranch(dir: string, files: RefFiles | undefined, branchName: string): Promise<void> {
  const branch = `refs/heads/${branchName}`;
  const written = files?.head();
  const head = written
    ? written.kind === 'symbolic'
      ? written.target
      : ''
    : (
        await gitAt(dir)
          .raw([...SAFE, 'symbolic-ref', '--quiet', 'HEAD'])
          .catch(() => '')
      ).trim();
  if (head !== branch) throw new Error(`the worktree ${dir} is on ${head || 'a detached HEAD'}, not on the task's branch ${branch}`);
}

/**
 * The commit's and the merge's last look (defence in depth): every file the task's whole change
 * (`base`..`tip`) touches must be one it may commit. Returns the refusals; none when it is clean.
 */
export async function branchRefusals(repo: string, base: string, tip: string, owned: OwnedPaths): Promise<ChangeRefusal[]> {
  return refusalsOf(await branchChanges(repo, base, tip), owned);
}

/** Every file the change `base`..`tip` touches (renames as a deletion and an addition). */
export async function branchChanges(repo: string, base: string, tip: string): Promise<string[]> {
  const out = await gitAt(repo).raw([...SAFE, 'diff', '--name-only', '-z', '--no-renames', base, tip, '--']);
  return out.split('\0').filter(Boolean);
}

/** The files of a change the task may not commit, as refusals. */
export function refusalsOf(files: readonly string[], owned: OwnedPaths): ChangeRefusal[] {
  return files.map((file) => owned.committable(file)).filter((refusal): refusal is ChangeRefusal => refusal !== undefined);
}

/** One line for a run's JSON and the board: `.claude/settings.json (guarded), README.md (not owned)`. */
export function refusalsText(refusals: readonly ChangeRefusal[]): string {
  return refusals
    .map((refusal) => `${refusal.path} (${refusal.kind === 'not_owned' ? 'outside the owned paths' : refusal.kind})`)
    .join(', ');
}
