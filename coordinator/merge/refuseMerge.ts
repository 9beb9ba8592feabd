import type { TaskRecord } from '../../shared/infra/board/runChange.js';
import type { RunContext } from '../run/runContext.js';
import { mergeRefusal } from './mergeCheck.js';
import type { TaskBranch } from './taskBranch.js';

/**
 * The refusal path: the coordinator's check of a branch before it merges it (mergeCheck.ts). One
 * that touches a guarded path or a path its task does not own is not merged, and the task fails
 * saying why (run JSON, board). Returns whether the branch was refused.
 */
export async function refuseMerge(
  room: Pick<RunContext, 'recorder' | 'integration' | 'say'>,
  task: TaskRecord,
  branch: TaskBranch,
): Promise<boolean> {
  const refused = await mergeRefusal(room.integration.repo, branch.base, branch.commit!, task.paths);
  if (!refused) return false;
  await room.recorder.record({ type: 'merge', task_id: task.task_id, outcome: 'refused', files: [], detail: refused });
  await room.recorder.record({
    type: 'task_state',
    task_id: task.task_id,
    status: 'failed',
    attempt: room.recorder.state.tasks.get(task.task_id)!.attempt,
    detail: `its branch ${branch.branch} was ${refused}`,
  });
  room.say(`${task.task_id} failed: its branch was ${refused}`);
  return true;
}
