import type { TaskRecord } from '../../shared/infra/board/runChange.js';
import { bulletList, fillBrief } from '../briefs/briefTemplate.js';
import type { RunContext } from '../run/runContext.js';
import { subtaskBrief } from '../run/subtaskBrief.js';
import type { TaskBranch } from './taskBranch.js';

/** Conflict workers tried for one task before it fails with the conflict shown. */
export const RESOLVE_ATTEMPTS = 2;

/**
 * Resolving a merge conflict: a worker redoes the task on `head`, the integration head its branch
 * conflicted with (resolve-brief), owning what the task owned. Returns its branch, or undefined
 * when it did not finish with one; the job runner has recorded why.
 */
export async function resolveConflict(
  ctx: RunContext,
  task: TaskRecord,
  files: string[],
  round: number,
  head: string,
): Promise<TaskBranch | undefined> {
  const { subtask, checks, fields } = subtaskBrief(ctx, task.task_id);
  const result = await ctx.jobs
    .run({
      taskId: `_resolve-${task.task_id}-${round}`,
      title: `redo ${task.task_id} on the integration head (merge conflict)`,
      role: ctx.role('worker'),
      prompt: fillBrief('resolve-brief', { ...fields, files: bulletList(files) }),
      base: head,
      subtask: task.task_id,
      checks,
      ownedPaths: subtask.paths,
    })
    // A job that could not run is recorded by the job runner: the conflict then stands unresolved.
    .catch(() => undefined);
  return result && result.status === 'completed' && result.branch ? result : undefined;
}
