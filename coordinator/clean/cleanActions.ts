import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { gitAt } from '../../shared/core/git/git.js';
import { listWorktrees, pruneWorktrees, removeWorktree } from '../../shared/core/git/worktree.js';
import type { PortLeaser } from '../../shared/infra/ports/portLease.js';
import type { CleanPlan, RunCleanup } from './cleanPlan.js';
import { commonDirOf } from './commonDirOf.js';
import { listDir } from './listDir.js';

export interface CleanActing {
  /** Print what would go, remove nothing. */
  dryRun: boolean;
  leaser: PortLeaser;
  print: (line: string) => void;
}

/** Carries out a clean plan, or with `dryRun` only prints it: one line per thing removed, then a summary. */
export async function carryOutPlan(plan: CleanPlan, how: CleanActing): Promise<void> {
  const { dryRun, print } = how;
  for (const verdict of plan.runs) {
    if (!verdict.clean) {
      print(`kept run ${verdict.run}: ${verdict.why}`);
      continue;
    }
    print(`run ${verdict.run}: ${verdict.why}`);
    await cleanUpRun(verdict.cleanup, how);
  }
  for (const { folder, remove } of plan.views) {
    for (const dir of remove) {
      if (!dryRun) await removeCheckout(dir);
      print(`${verb(dryRun)} view ${dir}`);
    }
    if (!dryRun && listDir(folder).length === 0) rmSync(folder, { recursive: true, force: true });
  }
  if (!dryRun) for (const repo of plan.prune) await pruneWorktrees(repo);
  const cleaned = plan.runs.filter((verdict) => verdict.clean).length;
  print(
    `orca clean: ${cleaned} run(s) ${dryRun ? 'to clean' : 'cleaned'}, ${plan.runs.length - cleaned} kept${dryRun ? ' (dry run: nothing removed)' : ''}`,
  );
}

async function cleanUpRun(cleanup: RunCleanup, { dryRun, leaser, print }: CleanActing): Promise<void> {
  const act = verb(dryRun);
  for (const dir of cleanup.worktrees) {
    if (!dryRun) await removeCheckout(dir);
    print(`  ${act} worktree ${dir}`);
  }
  if (!dryRun && cleanup.worktreesFolder) rmSync(cleanup.worktreesFolder, { recursive: true, force: true });
  for (const branch of cleanup.branches) {
    // Asked only now: until the run's worktrees were removed, they held its branches themselves.
    const holder = dryRun ? undefined : (await listWorktrees(branch.repo)).find((w) => w.branch === branch.name && existsSync(w.dir));
    if (holder) {
      print(`  kept branch ${branch.name} in ${repoName(branch.repo)}: checked out at ${holder.dir}, which is not orca's`);
      continue;
    }
    if (!dryRun) await gitAt(branch.repo).raw(['branch', '--quiet', '-D', branch.name]);
    print(
      `  ${act} branch ${branch.name} in ${repoName(branch.repo)} (was ${branch.sha}; \`git branch ${branch.name} ${branch.sha}\` restores it)`,
    );
  }
  if (cleanup.sessions) {
    if (!dryRun) rmSync(cleanup.sessions, { recursive: true, force: true });
    print(`  ${act} sessions ${cleanup.sessions}`);
  }
  for (const lease of cleanup.leases) {
    if (!dryRun) await leaser.drop(lease);
    print(`  ${act} port lease ${lease.key} (${lease.owner})`);
  }
}

/** Removes a worktree or view through its repository; one whose repository is gone is a plain folder now. */
async function removeCheckout(dir: string): Promise<void> {
  const repo = await commonDirOf(dir);
  if (repo) await removeWorktree(repo, dir);
  else rmSync(dir, { recursive: true, force: true });
}

function verb(dryRun: boolean): string {
  return dryRun ? 'would remove' : 'removed';
}

function repoName(commonDir: string): string {
  return path.basename(commonDir) === '.git' ? path.dirname(commonDir) : commonDir;
}
