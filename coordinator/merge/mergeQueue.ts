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
  /**
   * Merged and checked only with the rest of its group, in a step of their own: half of a step
   * whose merges failed the checks together (halved again while they fail, down to one), or one
   * alone that met a merge of its step not yet checked (a conflict, or nothing to merge).
   */
  group?: number;
}

type Merged = Extract<MergeOutcome, { kind: 'merged' }>;

/**
 * Finished tasks merge into the integration branch here, in the order mergeOrder.ts gives. Each
 * step takes every branch waiting, merges them one after another (a merge commit each), and lands
 * them together (landing.ts): the integration checks judge the tree they make, once, before they
 * count. Checks take seconds to minutes and branches finish in bursts, so a queue that checked
 * each merge alone would fall behind its workers. A step whose merges fail the checks together
 * goes back to where it was before them and is split in two halves, each merged again and checked
 * as a step of its own, halved again while it fails: the merge that fails is found in about
 * 2·log₂(n) checks, named, and only it is taken off. A branch that
 * conflicts is redone on the integration head by a worker (conflict resolution), outside the
 * queue so other branches merge meanwhile; the redone branch then waits its turn again, up to
 * RESOLVE_ATTEMPTS times. `step` is the one place branches go in.
 */
export class MergeQueue {
  private readonly waiting: Waiting[] = [];
  private finished = 0;
  private groups = 0;
  private busy = false;

  /** Settles when the step under way (its merges and their checks) is over. */
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
    let batch: Waiting[] = [];
    let done = () => {};
    this.stepping = new Promise((resolve) => {
      done = resolve;
    });
    try {
      batch = this.take();
      await this.step(batch);
    } catch (error) {
      // A merge that broke (git failed without a conflict, the record could not be written) fails its step's waits.
      for (const one of batch.length > 0 ? batch : this.waiting.splice(0)) one.settle.reject(error);
    }
    this.busy = false;
    done();
    void this.next();
  }

  /** The step's branches: the first waiting one in the merge order, and every other of its group (or, in none, every other in none). */
  private take(): Waiting[] {
    const ordered = this.order(this.waiting).filter((one) => this.waiting.includes(one));
    if (ordered.length === 0)
      throw new Error('the merge order returned no waiting branch: it must return the branches it is given, reordered');
    const group = ordered[0]!.group;
    const batch = ordered.filter((one) => one.group === group);
    for (const one of batch) this.waiting.splice(this.waiting.indexOf(one), 1);
    return batch;
  }

  /** The step's branches into the integration branch, one after another, and landed together; each recorded. */
  private async step(batch: readonly Waiting[]): Promise<void> {
    const merged: Array<{ entry: Waiting; outcome: Merged }> = [];
    for (const entry of batch) {
      const outcome = await this.mergeOne(entry, merged.length > 0);
      if (outcome) merged.push({ entry, outcome });
    }
    if (merged.length === 0) return;
    const plan = this.room.recorder.state.run.plan?.subtasks;
    const landed = await this.landing.landTogether(
      merged.map(({ entry, outcome }) => ({
        merge: {
          taskId: entry.task.task_id,
          branch: entry.first.branch,
          commit: entry.branch.commit,
          checkedAlone: checkedAlone(plan?.find((one) => one.id === entry.task.task_id)),
          resolved: entry.redone > 0,
        },
        outcome,
      })),
    );
    if (landed) for (const { entry } of merged) entry.settle.resolve();
    // Failed together: back at the last verified point, each half waits to be merged and checked as a step of its own.
    else this.split(merged.map(({ entry }) => entry));
  }

  /** Branches that failed the checks together, back in the queue in two groups, the first half first (in finish order). */
  private split(entries: readonly Waiting[]): void {
    const half = Math.ceil(entries.length / 2);
    const first = this.newGroup();
    const second = this.newGroup();
    for (const [at, entry] of entries.entries()) this.waiting.push({ ...entry, group: at < half ? first : second });
  }

  private newGroup(): number {
    this.groups += 1;
    return this.groups;
  }

  /**
   * One branch merged: its outcome when it merged, to be landed; else undefined, and its task is
   * recorded (refused, nothing to merge, a conflict redone or left unresolved). After a merge of
   * the same step, not yet checked, a conflict or nothing to merge says nothing of the verified
   * head: the branch goes again, alone, after the step (a redo must start from checked work).
   */
  private async mergeOne(entry: Waiting, afterUnchecked: boolean): Promise<Merged | undefined> {
    const { task, branch } = entry;
    if (!branch.commit || !branch.branch) {
      await this.recordNothing(task);
      entry.settle.resolve();
      return undefined;
    }
    if (await refuseMerge(this.room, task, branch)) {
      entry.settle.resolve();
      return undefined;
    }
    const how = entry.redone > 0 ? ' (redone on the integration head)' : '';
    // The commit the merge check looked at, never whatever the branch points at by now (agent code can move a ref).
    const outcome = await this.room.integration.merge(
      branch.commit,
      `Merge ${task.task_id}${how}: ${task.title}\n\norca run ${this.room.recorder.runId}`,
    );
    if (outcome.kind === 'merged') return outcome;
    if (afterUnchecked) {
      this.waiting.push({ ...entry, group: this.newGroup() });
      return undefined;
    }
    if (outcome.kind === 'conflict' && entry.redone < RESOLVE_ATTEMPTS && !this.room.signal.aborted) {
      await this.redo(entry, outcome);
      return undefined;
    }
    if (outcome.kind === 'conflict') await this.recordUnresolved(entry, outcome);
    else await this.recordNothing(task);
    entry.settle.resolve();
    return undefined;
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
