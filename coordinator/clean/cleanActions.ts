import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { gitAt } from '../../shared/core/git/git.js';
import { runBranches, runWipRefs } from '../../shared/core/git/orcaBranch.js';
import { removePoolsUnder } from '../../shared/core/git/poolRemoval.js';
import { commitsOnlyIn } from '../../shared/core/git/reachability.js';
import { deleteSharedRefs, sharedRunRefsOn } from '../../shared/core/git/sharedRemote.js';
import { removeView, removeViewsUnder } from '../../shared/core/git/viewTree.js';
import { saveWorkInProgress } from '../../shared/core/git/workInProgress.js';
import { listWorktrees, pruneWorktrees, removeWorktree } from '../../shared/core/git/worktree.js';
import type { OrcaHome } from '../../shared/core/runtime/orcaHome.js';
import type { PortLeaser } from '../../shared/infra/ports/portLease.js';
import { forgetRun } from '../runLedger.js';
import type { OrcaRef } from './cleanInventory.js';
import type { CleanPlan, RunCleanup, WorktreeRemoval } from './cleanPlan.js';
import { listDir } from './listDir.js';

export interface CleanActing {
  /** Print what would go, remove nothing. */
  dryRun: boolean;
  leaser: PortLeaser;
  home: OrcaHome;
  print: (line: string) => void;
}

/**
 * Carries out a clean plan, or with `dryRun` only prints it: one line per thing saved, removed or
 * kept, then a summary. A worktree's uncommitted changes are saved before it goes; one whose
 * changes cannot be saved is kept, and so is everything of its run that would go after it.
 * Returns how many things could not be done (0: all of it).
 */
export async function carryOutPlan(plan: CleanPlan, how: CleanActing): Promise<number> {
  const { dryRun, print } = how;
  for (const note of plan.notes) print(note);
  if (plan.all) {
    print(`orca clean --all: ${plan.repos.length} repositor${plan.repos.length === 1 ? 'y' : 'ies'} orca knows:`);
    for (const repo of plan.repos) print(`  ${repoName(repo)}`);
  } else {
    print(`orca clean: in ${plan.repos.map(repoName).join(', ')} (orca clean --all for every repository orca knows)`);
  }
  let failures = 0;
  for (const verdict of plan.runs) {
    if (verdict.action === 'keep') print(`kept run ${verdict.run}: ${verdict.why}`);
    else if (verdict.action === 'leave') print(`left run ${verdict.run} alone: ${verdict.why}`);
    else {
      print(`run ${verdict.run}: ${verdict.why}`);
      failures += await cleanUpRun(verdict.cleanup, plan.leaving, how);
    }
  }
  for (const { folder, remove } of plan.views) {
    for (const dir of remove) {
      if (!dryRun) await removeView(dir);
      print(`${verb(dryRun)} view ${dir}`);
    }
    if (!dryRun && listDir(folder).length === 0) rmSync(folder, { recursive: true, force: true });
  }
  if (!dryRun) for (const repo of plan.prune) await pruneWorktrees(repo);
  const count = (action: string) => plan.runs.filter((verdict) => verdict.action === action).length;
  const parts = [`${count('clean')} run(s) ${dryRun ? 'to clean' : 'cleaned'}`, `${count('keep')} run(s) kept whole`];
  // A cleaned run may keep its result or saved work: counted too, so "kept" is never 0 after one was kept.
  const keptRefs = plan.runs.reduce((sum, verdict) => sum + (verdict.action === 'clean' ? verdict.cleanup.kept.length : 0), 0);
  if (keptRefs > 0) parts.push(`${keptRefs} result(s) or saved work of cleaned runs kept (said above)`);
  if (count('leave') > 0) parts.push(`${count('leave')} of other installations left alone`);
  if (plan.outOfScope > 0) parts.push(`${plan.outOfScope} of other repositories not looked at (--repo DIR, or --all)`);
  if (failures > 0) parts.push(`${failures} thing(s) could not be done (said above)`);
  print(`orca clean: ${parts.join(', ')}${dryRun ? ' (dry run: nothing removed)' : ''}`);
  return failures;
}

async function cleanUpRun(cleanup: RunCleanup, leaving: Map<string, string[]>, how: CleanActing): Promise<number> {
  const { dryRun, leaser, print } = how;
  const act = verb(dryRun);
  let failures = 0;
  for (const worktree of cleanup.worktrees) {
    if (!(await saveThenRemove(worktree, how))) failures += 1;
  }
  if (failures > 0) {
    print(`  kept the rest of the run: a worktree of it could not be saved`);
    return failures;
  }
  if (!dryRun && cleanup.worktreesFolder) rmSync(cleanup.worktreesFolder, { recursive: true, force: true });
  for (const { ref, why } of cleanup.branches) {
    // Asked only now: until the run's worktrees were removed, they held its branches themselves.
    const holder = dryRun ? undefined : (await listWorktrees(ref.repo)).find((w) => w.branch === ref.name && existsSync(w.dir));
    if (holder) {
      print(`  kept branch ${ref.name} in ${repoName(ref.repo)}: checked out at ${holder.dir}, which is not one of this clean's worktrees`);
      continue;
    }
    const only = await onlyHere(ref, leaving);
    if (!dryRun && !(await removeRef(ref, print))) failures += 1;
    else
      print(
        `  ${act} branch ${ref.name} in ${repoName(ref.repo)} (${why}; at ${ref.sha}${lostNote(only, `git branch ${ref.name} ${ref.sha}`)})`,
      );
  }
  for (const ref of cleanup.wip) {
    const only = await onlyHere(ref, leaving);
    if (!dryRun && !(await removeRef(ref, print))) failures += 1;
    else
      print(
        `  ${act} saved work ${ref.ref} in ${repoName(ref.repo)} (--wip; at ${ref.sha}${lostNote(only, `git update-ref ${ref.ref} ${ref.sha}`)})`,
      );
  }
  if (cleanup.shared) failures += await cleanShared(cleanup.shared, how);
  for (const { ref, why } of cleanup.kept) print(`  kept ${ref.name} in ${repoName(ref.repo)} at ${ref.sha.slice(0, 12)}: ${why}`);
  if (cleanup.sessions) {
    if (!dryRun) rmSync(cleanup.sessions, { recursive: true, force: true });
    print(`  ${act} sessions ${cleanup.sessions}`);
  }
  if (cleanup.views) {
    if (!dryRun) await removeViewsUnder(cleanup.views);
    print(`  ${act} views ${cleanup.views}`);
  }
  if (cleanup.pools) {
    if (!dryRun) await removePoolsUnder(cleanup.pools);
    print(`  ${act} ready worktrees ${cleanup.pools}`);
  }
  for (const lease of cleanup.leases) {
    if (!dryRun) await leaser.drop(lease);
    print(`  ${act} port lease ${lease.key} (${lease.owner})`);
  }
  if (cleanup.record && !dryRun && !(await anythingLeft(cleanup.record.runId, cleanup.record.repos))) {
    forgetRun(how.home, cleanup.record.runId);
    print(`  removed its record ${how.home.runRecord(cleanup.record.runId)} (nothing of the run is left)`);
  }
  return failures;
}

/**
 * A shared run's refs on its remote: copies of what its workers pushed and of the integration
 * head its jobs started from (the result itself is in the user's repository). Listed, then
 * deleted in one push; a remote that cannot be reached is said, and counts as not done.
 */
async function cleanShared(shared: { runId: string; url: string; repo: string }, how: CleanActing): Promise<number> {
  // A push is made from a repository: the run's own.
  const cwd = shared.repo;
  try {
    const refs = await sharedRunRefsOn(shared.url, shared.runId, cwd);
    if (!how.dryRun) await deleteSharedRefs(shared.url, refs, cwd);
    for (const ref of refs) how.print(`  ${verb(how.dryRun)} ${ref} on the shared remote ${shared.url}`);
    return 0;
  } catch (error) {
    how.print(
      `  could not remove the run's refs on the shared remote ${shared.url}: ${error instanceof Error ? error.message.trim() : String(error)}`,
    );
    return 1;
  }
}

/** Deletes a branch or ref only if it is still where it was found; says why not otherwise. */
async function removeRef(ref: OrcaRef, print: (line: string) => void): Promise<boolean> {
  try {
    await gitAt(ref.repo).raw(['update-ref', '-d', ref.ref, ref.sha]);
    return true;
  } catch (error) {
    print(
      `  kept ${ref.name} in ${repoName(ref.repo)}: it could not be removed (${error instanceof Error ? error.message.trim() : String(error)})`,
    );
    return false;
  }
}

/** Saves a worktree's changes (when it has any), then removes it; false when they could not be saved (it is kept). */
async function saveThenRemove(worktree: WorktreeRemoval, { dryRun, print }: CleanActing): Promise<boolean> {
  if (dryRun) {
    if (worktree.saveTo) print(`  would save the uncommitted changes of ${worktree.dir} to ${worktree.saveTo}`);
    print(`  would remove worktree ${worktree.dir}${worktree.repo ? '' : ' (no worktree of any repository any more: a plain folder)'}`);
    return true;
  }
  if (worktree.saveTo) {
    try {
      const saved = await saveWorkInProgress(
        worktree.dir,
        worktree.saveTo,
        `orca: work in progress saved by orca clean\n\nFrom ${worktree.dir}`,
      );
      if (saved)
        print(
          `  saved the uncommitted changes of ${worktree.dir} (${saved.files.length} file(s)) to ${saved.ref} at ${saved.commit}: \`git checkout ${saved.ref}\` gets them back (orca clean --wip removes it)`,
        );
    } catch (error) {
      print(
        `  kept worktree ${worktree.dir}: its uncommitted changes could not be saved (${error instanceof Error ? error.message.trim() : String(error)})`,
      );
      return false;
    }
  }
  if (worktree.repo) await removeWorktree(worktree.repo, worktree.dir);
  else rmSync(worktree.dir, { recursive: true, force: true });
  print(`  removed worktree ${worktree.dir}${worktree.repo ? '' : ' (no worktree of any repository any more: a plain folder)'}`);
  return true;
}

/** Commits of a ref no ref will reach once this clean is done: printed with how to restore them, dry run or not. */
async function onlyHere(ref: OrcaRef, leaving: Map<string, string[]>): Promise<number> {
  return commitsOnlyIn(ref.repo, ref.sha, leaving.get(ref.repo) ?? [ref.ref]);
}

function lostNote(only: number, restore: string): string {
  return only > 0 ? `; ${only} commit(s) on it are on no other branch or ref: \`${restore}\` restores it` : '';
}

/** Whether the run still has branches or saved work in any of its repositories (a repository gone holds nothing). */
async function anythingLeft(runId: string, repos: string[]): Promise<boolean> {
  for (const repo of repos) {
    if (!existsSync(repo)) continue;
    const refs = await gitAt(repo).raw(['for-each-ref', '--format=%(refname)', runBranches(runId), runWipRefs(runId)]);
    if (refs.trim()) return true;
  }
  return false;
}

function verb(dryRun: boolean): string {
  return dryRun ? 'would remove' : 'removed';
}

function repoName(commonDir: string): string {
  return path.basename(commonDir) === '.git' ? path.dirname(commonDir) : commonDir;
}
