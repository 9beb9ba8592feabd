import type { RunStatus } from '../../shared/core/events/runEvent.js';
import { DONE_WELL } from '../../shared/core/events/taskStatusGroups.js';
import type { TaskRecord } from '../../shared/infra/board/runChange.js';
import type { RunFold } from '../../shared/infra/board/runFold.js';
import type { VerifyOutcome } from './verifyPhase.js';

export interface RunStatusInput {
  /** The plan's subtasks as the run left them. */
  tasks: readonly TaskRecord[];
  /** The last integration verification round, when one ran. */
  verify: VerifyOutcome | undefined;
  /** The integration tree is the base's own: nothing the run did is in it. */
  unchanged: boolean;
  abortReason?: string;
}

/**
 * The run's status (docs/json.md, README "How a run goes"):
 * - ABORTED: the run was aborted (a user, `orca abort`, a budget).
 * - FAIL: nothing was merged (the integration tree is still the base's, whatever the tasks say),
 *   or the merged tree was not verified, or its verification failed.
 * - PARTIAL: some work merged and was verified, but some subtasks failed or were blocked; or every
 *   subtask merged and verification was only PARTIAL (the agent's word, or evidence short of a pass).
 * - PASS: every subtask merged and the merged tree was verified: gates, fresh integration evidence
 *   and the Verification agent's PASS.
 */
export function runStatus(input: RunStatusInput): { status: RunStatus; detail: string } {
  if (input.abortReason) return { status: 'ABORTED', detail: input.abortReason };
  const unmerged = input.tasks.filter((task) => !DONE_WELL.includes(task.status));
  // Each task's own `detail` in the run's JSON says why it did not merge.
  const notMerged = unmerged.map((task) => `${task.task_id} ${task.status}`).join(', ');
  const { verify } = input;
  if (input.unchanged) {
    return {
      status: 'FAIL',
      detail: `nothing was merged: the integration branch is still at the base${notMerged ? ` (${notMerged})` : ' (the merged tasks changed nothing)'}; nothing was verified`,
    };
  }
  if (!verify) return { status: 'FAIL', detail: 'the merged tree was not verified' };
  if (verify.status === 'FAIL') return { status: 'FAIL', detail: `${verify.detail}${notMerged ? `; not merged: ${notMerged}` : ''}` };
  if (unmerged.length > 0) return { status: 'PARTIAL', detail: `not merged: ${notMerged}${verify.detail ? `; ${verify.detail}` : ''}` };
  return { status: verify.status, detail: verify.detail };
}

/** The plan's subtasks, in plan order, as the run's state holds them. */
export function planTasksOf(state: RunFold): TaskRecord[] {
  return (state.run.plan?.subtasks ?? [])
    .map((subtask) => state.tasks.get(subtask.id))
    .filter((task): task is TaskRecord => task !== undefined);
}
