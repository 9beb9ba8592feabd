import { existsSync } from 'node:fs';
import { branchExists, commitsAhead } from '../../shared/core/git/git.js';
import { sharedRef } from '../../shared/core/git/orcaBranch.js';
import { pushBranch } from '../../shared/core/git/remoteClone.js';
import { withRepoLock } from '../../shared/core/git/repoLock.js';
import { deleteBranchLocked, pruneWorktrees, removeWorktree } from '../../shared/core/git/worktree.js';
import type { AgentJob } from '../../shared/infra/queue/agentJob.js';
import { runHooks } from '../../shared/policy/hooks/hookRunner.js';
import type { JobWorkspace, WorkspaceHooks } from './jobWorkspace.js';
import { saveWork } from './savedWork.js';

/**
 * After the agent: a scratch worktree is always removed, a branch worktree without changes too
 * (what it holds beyond its commit is saved first, unless the agent completed: its commit took
 * everything); one with a commit, or a failed agent's, stays for the merge (and for inspection)
 * until the run hands it over at its end.
 */
export async function releaseWorkspace(
  workspace: JobWorkspace,
  outcome: { committed: boolean; keep: boolean; completed: boolean; job: AgentJob },
  hooks: WorkspaceHooks,
): Promise<void> {
  if (workspace.kind === 'view') return;
  if (workspace.kind === 'scratch') {
    await removeWorktree(workspace.repo, workspace.dir);
    return;
  }
  if (workspace.remote && workspace.branch && outcome.committed)
    await pushBranch(workspace.repo, workspace.branch, sharedRef(outcome.job.run_id, outcome.job.task_id));
  if (outcome.committed || outcome.keep) return;
  // A tree found changed in the pool after the job began holds nothing of the job's (nothing of it ran there): not saved as its work.
  const changedInPool = (await workspace.startCheck) !== undefined;
  if (!outcome.completed && !changedInPool) await saveWork(workspace.repo, workspace.dir, outcome.job, 'before its worktree was removed');
  const removeHook = () => runHooks(hooks.config, 'WorktreeRemove', { worktree_path: workspace.dir }, hooks.context(workspace.repo));
  if ((hooks.config.byEvent.WorktreeRemove?.length ?? 0) > 0) await withRepoLock(workspace.repo, removeHook);
  else await removeHook();
  if (workspace.madeByHook) {
    // The hook that made the folder removes it (Claude Code's contract): orca deletes nothing it
    // did not make, and only its own branch, once no worktree holds it.
    await pruneWorktrees(workspace.repo);
    if (!workspace.madeByHook.createdBranch || existsSync(workspace.dir)) return;
  } else {
    await removeWorktree(workspace.repo, workspace.dir);
  }
  // Compared with the base, not the start: a dead attempt's commits on the branch are work to keep.
  if (
    workspace.branch &&
    (await branchExists(workspace.repo, workspace.branch)) &&
    (await commitsAhead(workspace.repo, workspace.base, workspace.branch)) === 0
  ) {
    await deleteBranchLocked(workspace.repo, workspace.branch);
  }
}
