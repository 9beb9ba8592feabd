import { existsSync } from 'node:fs';
import { branchExists, commitsAhead, gitAt } from '../../shared/core/git/git.js';
import { sharedRef } from '../../shared/core/git/orcaBranch.js';
import { withRepoLock } from '../../shared/core/git/repoLock.js';
import { checkOutSparse } from '../../shared/core/git/sparseCheckout.js';
import { addWorktree, addWorktreeForBranch, deleteBranchLocked, listWorktrees } from '../../shared/core/git/worktree.js';
import type { AgentJob } from '../../shared/infra/queue/agentJob.js';
import type { HookOutcome } from '../../shared/policy/hooks/hookOutcome.js';
import { runHooks } from '../../shared/policy/hooks/hookRunner.js';
import { adoptHookWorktree } from './hookWorktree.js';
import { type JobWorkspace, pooledClaims, type WorkspaceGround, type WorkspaceHooks } from './jobWorkspace.js';
import { saveThenRemove } from './savedWork.js';

export interface TaskBranch {
  branch: string;
  /** Whether the branch existed before this attempt (a dead attempt's). */
  branchThere: boolean;
  /** The paths a sparse checkout holds; unset for a whole checkout. */
  sparse?: string[];
}

/**
 * A writing role's workspace: a worktree on the task branch. A dead attempt's tree is never reused
 * (saved, then removed); a WorktreeCreate hook may make the folder; else the attempt starts from
 * the dead attempt's commits when it left some, or from a fresh worktree at the base.
 */
export async function prepareBranch(ground: WorkspaceGround, hooks: WorkspaceHooks, task: TaskBranch): Promise<JobWorkspace> {
  const { job, home, repo, remote, config } = ground;
  const { branch, branchThere, sparse } = task;
  const dir = home.worktree(job.run_id, job.task_id);
  await clearTaskWorktrees(repo, dir, task, job);
  const hook = await worktreeCreateHook(repo, job, hooks);
  ground.trace?.mark('cleared_hooked');
  const pushedRef = remote ? sharedRef(job.run_id, job.task_id) : undefined;
  if (hook.worktreePath) {
    const adopted = await adoptHookWorktree(hook.worktreePath, repo, job.base, branch, () =>
      previousAttempt(repo, branch, job.base, pushedRef),
    );
    // The hook made the folder its own way: orca adds only its own files to it.
    const linked = await ground.linkStartFiles(adopted.dir);
    return { repo, ...adopted, kind: 'branch', base: job.base, linked, config, remote };
  }
  const previous = await previousAttempt(repo, branch, job.base, pushedRef, branchThere);
  // A dead attempt's commits may reach past the sparse paths: its branch is checked out whole.
  const made = previous ? { start: await addWorktreeForBranch(repo, dir, branch), pooled: false } : await freshWorktree(ground, dir, task);
  ground.trace?.mark('worktree');
  // A whole checkout made at its start commit, or taken from the pool checked clean at it: its index is that commit's tree.
  const linked = await ground.linkStartFiles(dir, previous || !sparse ? made.start : undefined);
  ground.trace?.mark('linked');
  return { repo, dir, kind: 'branch', branch, base: job.base, ...made, linked, config, sparse: previous ? undefined : sparse, remote };
}

/**
 * A dead attempt's tree is never reused: whatever it half-wrote is saved under its work-in-progress
 * ref, then the tree goes. It may live under another ORCA_HOME on this host, still holding the
 * branch: the job is ours now.
 */
async function clearTaskWorktrees(repo: string, dir: string, { branch, branchThere }: TaskBranch, job: AgentJob): Promise<void> {
  if (existsSync(dir)) await saveThenRemove(repo, dir, job);
  // Only an existing branch can be held by another worktree: a fresh task skips the listing.
  if (!branchThere) return;
  for (const stale of await listWorktrees(repo)) {
    if (stale.branch === branch && existsSync(stale.dir)) await saveThenRemove(repo, stale.dir, job);
  }
}

/**
 * The WorktreeCreate hooks, which may make the folder (`worktreePath`) or refuse it. Under the
 * repository's worktree lock, as orca's own `git worktree add` is: a hook that adds a worktree
 * races every other add, remove and prune on `.git/config.lock` (seen failing with 128). With none
 * configured there is nothing to serialise: no lock on every job's way to its agent.
 */
async function worktreeCreateHook(repo: string, job: AgentJob, hooks: WorkspaceHooks): Promise<HookOutcome> {
  const createHook = () => runHooks(hooks.config, 'WorktreeCreate', { name: `${job.run_id}/${job.task_id}` }, hooks.context(repo));
  const configured = (hooks.config.byEvent.WorktreeCreate?.length ?? 0) > 0;
  const hook = configured ? await withRepoLock(repo, createHook) : await createHook();
  if (hook.blocked) throw new Error(`a WorktreeCreate hook refused the worktree: ${hook.reason ?? 'no reason given'}`);
  return hook;
}

/**
 * A ready worktree from the pool when there is one (only the branch's ref is made; its check may
 * still run: JobWorkspace.startCheck), else a new one at the base.
 */
async function freshWorktree(
  { job, repo, pool, place, trace }: WorkspaceGround,
  dir: string,
  { branch, sparse }: TaskBranch,
): Promise<Pick<JobWorkspace, 'start' | 'pooled' | 'checkedClean' | 'startCheck'>> {
  // A sparse checkout rewrites the tree after the pool's check (a pooled repository has none, but the check would not hold).
  const taken = await pool?.takeChecked(place, dir, branch, { trace, deferCheck: !sparse });
  const start = taken?.start ?? (await addWorktree({ repo, dir, base: job.base, branch, noCheckout: sparse !== undefined }));
  if (sparse) await checkOutSparse(dir, sparse);
  return { start, pooled: taken !== undefined, ...pooledClaims(taken, sparse) };
}

/**
 * Whether a dead attempt left commits on the task branch. A branch with none is deleted so the
 * new attempt starts cleanly from the base. For a remote, the branch an attempt pushed (on any
 * host: `pushed` is the task's ref on the remote, fetched into the clone) counts, and wins over
 * this clone's own branch: what was pushed is complete, a local branch may be older.
 */
async function previousAttempt(repo: string, branch: string, base: string, pushedRef?: string, exists?: boolean): Promise<boolean> {
  if (pushedRef) {
    const pushed = (await gitAt(repo).raw(['for-each-ref', '--format=%(objectname)', pushedRef])).trim();
    if (pushed && (await commitsAhead(repo, base, pushed)) > 0) {
      // Under the lock, as a branch deleted is (deleteBranchLocked): git reads every worktree's HEAD for it.
      await withRepoLock(repo, () => gitAt(repo).raw(['branch', '--quiet', '--force', branch, pushed]));
      return true;
    }
  }
  if (!(exists ?? (await branchExists(repo, branch)))) return false;
  if ((await commitsAhead(repo, base, branch)) > 0) return true;
  await deleteBranchLocked(repo, branch);
  return false;
}
