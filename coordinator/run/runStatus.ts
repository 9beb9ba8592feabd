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
 * The run's status (docs/json.md, README "How a run goes"). The integration branch only ever holds
 * verified work (landing.ts), so the status says what is on it:
 * - ABORTED: the run was aborted (a user, `orca abort`, a budget).
 * - FAIL: nothing verified is on the integration branch: it is at the base (nothing merged, every
 *   merge failed its checks and was taken off, or the final verification failed and took them all
 *   back), or the merged tree was never verified.
 * - PARTIAL: some subtasks' work is on it, verified, and the rest is named with why (each task's
 *   `detail`); or all of it is, and the Verification agent's verdict was PARTIAL.
 * - PASS: every subtask's work is on it and verified: its integration checks after its merge, then
 *   the gates, fresh integration evidence and the Verification agent's PASS on the merged tree.
 */
export function runStatus(input: RunStatusInput): { status: RunStatus; detail: string } {
  if (input.abortReason) return { status: 'ABORTED', detail: input.abortReason };
  const unmerged = input.tasks.filter((task) => !DONE_WELL.includes(task.status));
  // Each task's own `detail` in the run's JSON says why it did not merge.
  const notMerged = unmerged.map((task) => `${task.task_id} ${task.status}`).join(', ');
  const { verify } = input;
  if (verify?.status === 'FAIL') {
    return {
      status: 'FAIL',
      detail: `${verify.detail}; the integration branch is back at the base, nothing of the run's is on it${notMerged ? ` (not merged: ${notMerged})` : ''}`,
    };
  }
  if (input.unchanged && (verify || input.tasks.some((task) => task.merge_outcome === 'rolled_back'))) {
    const why = verify ? verify.detail : 'every merge failed the integration checks and was taken off';
    return { status: 'FAIL', detail: `nothing verified is on the integration branch: it is at the base (${notMerged}); ${why}` };
  }
  if (input.unchanged) {
    return {
      status: 'FAIL',
      detail: `nothing was merged: the integration branch is still at the base${notMerged ? ` (${notMerged})` : ' (the merged tasks changed nothing)'}; nothing was verified`,
    };
  }
  if (!verify) return { status: 'FAIL', detail: 'the merged tree was not verified' };
  if (unmerged.length > 0) return { status: 'PARTIAL', detail: `not on the result branch: ${notMerged}; ${verify.detail}` };
  return { status: verify.status, detail: verify.detail };
}

/** The plan's subtasks, in plan order, as the run's state holds them. */
export function planTasksOf(state: RunFold): TaskRecord[] {
  return (state.run.plan?.subtasks ?? [])
    .map((subtask) => state.tasks.get(subtask.id))
    .filter((task): task is TaskRecord => task !== undefined);
}
