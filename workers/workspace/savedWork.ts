import path from 'node:path';
import { wipRef } from '../../shared/core/git/orcaBranch.js';
import { saveWorkInProgress } from '../../shared/core/git/workInProgress.js';
import { listWorktrees, removeWorktree } from '../../shared/core/git/worktree.js';
import type { AgentJob } from '../../shared/infra/queue/agentJob.js';

/**
 * A task worktree about to go: its uncommitted changes are first committed to the task's
 * work-in-progress ref (refs/orca/wip/<run>/<task>), so no attempt's work is lost with its tree.
 * A folder that is no longer a worktree of the repository has nothing git can save, and goes.
 */
export async function saveThenRemove(repo: string, dir: string, job: AgentJob): Promise<void> {
  await saveWork(repo, dir, job, 'before a new attempt replaced its worktree');
  await removeWorktree(repo, dir);
}

export async function saveWork(repo: string, dir: string, job: AgentJob, when: string): Promise<void> {
  const resolved = path.resolve(dir);
  if (!(await listWorktrees(repo)).some((worktree) => path.resolve(worktree.dir) === resolved)) return;
  const message = `orca: work in progress of task ${job.task_id} in run ${job.run_id}\n\nSaved by a worker ${when}: ${dir}`;
  try {
    await saveWorkInProgress(dir, wipRef(job.run_id, job.task_id), message);
  } catch (error) {
    const detail = error instanceof Error ? error.message.trim() : String(error);
    throw new Error(`could not save the uncommitted changes in ${dir} ${when}: ${detail}; they are still there`, { cause: error });
  }
}
