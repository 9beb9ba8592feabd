import { orcaOwnedPaths } from '../shared/core/git/worktreeStartState.js';
import type { AgentResult } from '../shared/core/loop/query.js';
import { settled } from '../shared/core/runtime/settled.js';
import type { AgentJob } from '../shared/infra/queue/agentJob.js';
import { branchChanges, ownedCommitObject, pointBranchAt, refusalsOf, refusalsText } from '../shared/policy/permissions/ownedCommit.js';
import { OwnedPaths } from '../shared/policy/permissions/ownedPaths.js';
import type { JobWorkspace } from './workspace/jobWorkspace.js';

/**
 * A completed agent's work, committed on the task branch: exactly its owned changes (anything
 * else stays in the worktree, out of the commit). The task's whole change is then checked once
 * more (defence in depth): a branch that touches a guarded path or one the task does not own is
 * refused, never handed back to merge.
 */
export async function commitWork(
  workspace: JobWorkspace,
  job: AgentJob,
  result: AgentResult,
  /** What the Report's look found changed, where nothing can have written since (reportLook.ts): not asked of git again. */
  changed?: readonly string[],
): Promise<{ commit?: string; refused?: string; files?: string[] }> {
  if (workspace.kind !== 'branch' || !workspace.branch) return {};
  const owned = new OwnedPaths(job.owned_paths);
  const made = await ownedCommitObject(workspace.dir, commitMessage(job, result), {
    start: workspace.start,
    owned,
    // Nothing orca put in the worktree is the task's change (worktreeStartState.ts).
    linked: orcaOwnedPaths(workspace.dir),
    branch: workspace.branch,
    ...(changed ? { changed } : {}),
  });
  // An attempt that resumed a dead one's commits and added nothing still hands those back.
  const commit = made.commit ?? (workspace.start !== job.base ? workspace.start : undefined);
  // The branch moved and the whole change listed at once (the diff reads only the commit's objects),
  // both done before either's failure is thrown. One diff for both: the check, and the files the result names.
  const [files] = await settled([
    commit ? branchChanges(workspace.dir, job.base, commit) : undefined,
    pointBranchAt(workspace.dir, workspace.branch, made.commit ?? workspace.start),
  ]);
  if (!commit || !files) return {};
  const refusals = refusalsOf(files, owned);
  if (refusals.length > 0) return { refused: `the task's commit ${commit.slice(0, 12)} was refused: it touches ${refusalsText(refusals)}` };
  return { commit, files };
}

function commitMessage(job: AgentJob, result: AgentResult): string {
  const summary = (result.report as { summary?: unknown } | undefined)?.summary;
  const title = typeof summary === 'string' ? summary.split('\n')[0]!.slice(0, 72) : `${job.role.name} ${job.task_id}`;
  return `${title}\n\norca run ${job.run_id}, task ${job.task_id} (${job.role.name})`;
}
