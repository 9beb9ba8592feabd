import type { TaskRecord } from '../../shared/infra/board/runChange.js';
import type { RunContext } from '../run/runContext.js';
import { checkedAlone } from '../run/subtaskBrief.js';
import { RESOLVE_ATTEMPTS } from './conflictResolution.js';
import type { MergeOutcome } from './integration.js';
import type { Landing } from './landing.js';
import { finishOrder, type MergeOrder, type WaitingMerge } from './mergeOrder.js';
import { refuseMerge } from './refuseMerge.js';
import type { TaskBranch } from './taskBranch.js';

/** What the merge queue works with: the run's record, its integration branch, and its voice. */
export type MergeRoom = Pick<RunContext, 'recorder' | 'integration' | 'signal' | 'say'>;

/**
 * Redoes a task from `head` after its branch conflicted (conflictResolution.ts): its new branch, or
 * undefined. `head` is the integration head the merge conflicted with, taken while the queue held
 * the branch: never one whose merge is still being checked (and may be taken off).
 */
export type ConflictResolver = (task: TaskRecord, files: string[], round: number, head: string) => Promise<TaskBranch | undefined>;

type Conflict = Extract<MergeOutcome, { kind: 'conflict' }>;

interface Waiting extends WaitingMerge {
  /** The task's own branch, which its failure names when no redone branch merges. */
  first: TaskBranch;
  settle: { resolve(): void; reject(error: unknown): void };
}

/**
 * Finished tasks merge into the integration branch here, one at a time, in the order mergeOrder.ts
 * gives. A branch that conflicts is redone on the integration head by a worker (conflict
 * resolution), outside the queue so other branches merge meanwhile; the redone branch then waits
 * its turn again, up to RESOLVE_ATTEMPTS times. `step` is the one place a branch goes in; a merge
 * then lands (landing.ts): the integration checks judge it before it counts, and one they fail is
 * taken off again.
 */
export class MergeQueue {
  private readonly waiting: Waiting[] = [];
  private finished = 0;
  private busy = false;

  /** Settles when the step under way (a merge and its checks) is over. */
  private stepping: Promise<void> = Promise.resolve();

  constructor(
    private readonly room: MergeRoom,
    private readonly resolve: ConflictResolver,
    private readonly landing: Landing,
    private readonly order: MergeOrder = finishOrder,
  ) {}

  /**
   * The integration head once no merge is being checked: what a task starts from, so none starts
   * on a merge that its checks may still take off.
   */
  async settledHead(): Promise<string> {
    while (this.busy) await this.stepping;
    return this.room.integration.head();
  }

  /** Takes a finished task's branch; settles once it is merged or has failed to (refused, a conflict left unresolved). */
  merge(task: TaskRecord, branch: TaskBranch): Promise<void> {
    return new Promise((resolve, reject) => this.wait({ task, branch, first: branch, redone: 0, settle: { resolve, reject } }));
  }

  private wait(entry: Omit<Waiting, 'finished'>): void {
    this.finished += 1;
    this.waiting.push({ ...entry, finished: this.finished });
    // Taken a microtask later, so branches handed in together are ordered together.
    queueMicrotask(() => void this.next());
  }

  private async next(): Promise<void> {
    if (this.busy || this.waiting.length === 0) return;
    this.busy = true;
    let entry: Waiting | undefined;
    let done = () => {};
    this.stepping = new Promise((resolve) => {
      done = resolve;
    });
    try {
      entry = this.take();
      await this.step(entry);
    } catch (error) {
      // A merge that broke (git failed without a conflict, the record could not be written) fails its own task's wait.
      for (const one of entry ? [entry] : this.waiting.splice(0)) one.settle.reject(error);
    }
    this.busy = false;
    done();
    void this.next();
  }

  private take(): Waiting {
    const [first] = this.order(this.waiting);
    const at = first ? this.waiting.indexOf(first) : -1;
    if (at < 0) throw new Error('the merge order returned no waiting branch: it must return the branches it is given, reordered');
    return this.waiting.splice(at, 1)[0]!;
  }

  /** One branch into the integration branch, and its outcome recorded. */
  private async step(entry: Waiting): Promise<void> {
    const { task, branch } = entry;
    if (!branch.commit || !branch.branch) {
      await this.recordNothing(task);
      return entry.settle.resolve();
    }
    if (await refuseMerge(this.room, task, branch)) return entry.settle.resolve();
    const how = entry.redone > 0 ? ' (redone on the integration head)' : '';
    // The commit the merge check looked at, never whatever the branch points at by now (agent code can move a ref).
    const outcome = await this.room.integration.merge(
      branch.commit,
      `Merge ${task.task_id}${how}: ${task.title}\n\norca run ${this.room.recorder.runId}`,
    );
    if (outcome.kind === 'conflict' && entry.redone < RESOLVE_ATTEMPTS && !this.room.signal.aborted) {
      return this.redo(entry, outcome);
    }
    if (outcome.kind === 'conflict') await this.recordUnresolved(entry, outcome);
    else if (outcome.kind === 'nothing') await this.recordNothing(task);
    else {
      const plan = this.room.recorder.state.run.plan?.subtasks.find((one) => one.id === task.task_id);
      await this.landing.land(
        {
          taskId: task.task_id,
          branch: entry.first.branch,
          commit: branch.commit,
          checkedAlone: checkedAlone(plan),
          resolved: entry.redone > 0,
        },
        outcome,
      );
    }
    entry.settle.resolve();
  }

  private async redo(entry: Waiting, conflict: Conflict): Promise<void> {
    const { task } = entry;
    const round = entry.redone + 1;
    await this.room.recorder.record({
      type: 'merge',
      task_id: task.task_id,
      outcome: 'conflict',
      files: conflict.files,
      detail: conflict.detail.slice(0, 2_000),
    });
    this.room.say(
      `${task.task_id} conflicts in ${conflict.files.join(', ')}: a worker redoes it on the integration head (attempt ${round})`,
    );
    // Read now, while this step holds the branch: once the step ends the next merge moves it, and
    // that merge's checks may still take it off when the redo starts.
    const head = await this.room.integration.head();
    this.redoAside(entry, conflict, round, head).catch(entry.settle.reject);
  }

  private async redoAside(entry: Waiting, conflict: Conflict, round: number, head: string): Promise<void> {
    const redone = await this.resolve(entry.task, conflict.files, round, head);
    if (redone) return this.wait({ ...entry, branch: redone, redone: round });
    await this.recordUnresolved(entry, conflict);
    entry.settle.resolve();
  }

  private async recordNothing(task: TaskRecord): Promise<void> {
    await this.room.recorder.record({
      type: 'merge',
      task_id: task.task_id,
      outcome: 'nothing',
      files: [],
      detail: 'the task changed no files',
    });
    await this.room.recorder.record({
      type: 'task_state',
      task_id: task.task_id,
      status: 'merged',
      attempt: this.attempt(task),
      detail: 'no changes to merge',
    });
  }

  private async recordUnresolved(entry: Waiting, conflict: Conflict): Promise<void> {
    const { task } = entry;
    await this.room.recorder.record({
      type: 'merge',
      task_id: task.task_id,
      outcome: 'failed',
      files: conflict.files,
      detail: conflict.detail.slice(0, 2_000),
    });
    await this.room.recorder.record({
      type: 'task_state',
      task_id: task.task_id,
      status: 'failed',
      attempt: this.attempt(task),
      detail: `merge conflict in ${conflict.files.join(', ')} not resolved after ${RESOLVE_ATTEMPTS} attempt(s); its branch ${entry.first.branch} is kept`,
    });
    this.room.say(`${task.task_id} failed: unresolved conflict in ${conflict.files.join(', ')}`);
  }

  private attempt(task: TaskRecord): number {
    return this.room.recorder.state.tasks.get(task.task_id)!.attempt;
  }
}
