import { mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { gitAt } from '../../core/git/git.js';
import { RefFiles } from '../../core/git/refFiles.js';
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

/**
 * Commits exactly the owned changes of a worktree on its branch, as one commit on `start`: the
 * changed files the task owns (guarded ones only where owned literally, after the host's watch
 * admitted them), built in an index of its own so nothing the agent staged or committed itself
 * comes along. The branch then points at that commit (or back at `start` when there was none),
 * and the worktree's own index follows it; the files on disk are left as they are.
 */
export async function commitOwned(
  dir: string,
  message: string,
  options: { start: string; owned: OwnedPaths; linked: readonly string[]; branch: string },
): Promise<OwnedCommit> {
  const changed = await changedSince(dir, options.start, options.linked);
  const left: ChangeRefusal[] = [];
  const take: string[] = [];
  for (const file of changed) {
    const refusal = options.owned.committable(file);
    if (refusal) left.push(refusal);
    else take.push(file);
  }
  const git = gitAt(dir);
  // The task's branch as the host named it, never whatever HEAD says now (an agent could point it at another).
  const branch = `refs/heads/${options.branch}`;
  // HEAD and the git folder from their files, as git finds them (the `.git` pointer), where the refs are in files.
  const files = RefFiles.open(dir);
  const written = files?.head();
  const head = written
    ? written.kind === 'symbolic'
      ? written.target
      : ''
    : (await git.raw([...SAFE, 'symbolic-ref', '--quiet', 'HEAD']).catch(() => '')).trim();
  if (head !== branch) throw new Error(`the worktree ${dir} is on ${head || 'a detached HEAD'}, not on the task's branch ${branch}`);
  let commit: string | undefined;
  if (take.length > 0) {
    // An index of its own, in the worktree's git folder (the host's, never the agent's tree).
    const gitDir = files?.gitDir ?? path.resolve(dir, (await git.raw([...SAFE, 'rev-parse', '--git-dir'])).trim());
    const scratch = mkdtempSync(path.join(gitDir, 'orca-owned-'));
    try {
      const indexed = gitAt(dir, undefined, { GIT_INDEX_FILE: path.join(scratch, 'index') });
      await indexed.raw([...SAFE, 'read-tree', options.start]);
      await indexed.raw([...SAFE, 'add', '--all', '--', ...take.map((file) => `:(literal)${file}`)]);
      const tree = (await indexed.raw([...SAFE, 'write-tree'])).trim();
      const startTree = (await git.raw([...SAFE, 'rev-parse', `${options.start}^{tree}`])).trim();
      if (tree !== startTree) commit = (await git.raw([...SAFE, 'commit-tree', tree, '-p', options.start, '-m', message])).trim();
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }
  await git.raw([...SAFE, 'update-ref', '-m', 'orca: the owned changes', branch, commit ?? options.start]);
  await git.raw([...SAFE, 'reset', '--quiet', '--mixed', commit ?? options.start]);
  return { commit, left };
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
