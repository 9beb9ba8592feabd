import type { TaskRecord } from '../../shared/infra/board/runChange.js';
import type { TaskBranch } from './taskBranch.js';

/** A finished task's branch waiting in the merge queue for its turn. */
export interface WaitingMerge {
  task: TaskRecord;
  branch: TaskBranch;
  /** Its place in finish order (1 for the first branch handed to the queue); a branch redone after a conflict finishes anew. */
  finished: number;
  /** How many times the task was redone on the integration head after a conflict (0: its own first branch). */
  redone: number;
}

/**
 * The order the merge queue takes waiting branches in: each time it is free, it merges what this
 * returns, in that order, in one step (up to the first branch that must go alone: mergeQueue.ts).
 * Any order is safe for the plan's dependencies: a task starts only after those it depends on
 * merged, so no two waiting branches depend on each other.
 */
export type MergeOrder = <Waiting extends WaitingMerge>(waiting: readonly Waiting[]) => Waiting[];

/** Finish order: the branch that finished first merges first. */
export const finishOrder: MergeOrder = (waiting) => [...waiting].sort((a, b) => a.finished - b.finished);
