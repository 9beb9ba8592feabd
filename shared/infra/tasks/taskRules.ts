import type { Task, TaskListStatus } from './task.js';

/**
 * The rules of a task list, as pure functions over the whole list (the store applies them and
 * writes what changed). Every refusal is a TaskRuleError with a message the model can act on.
 *
 * Status moves:
 *   pending     → in_progress, completed, failed, cancelled
 *   in_progress → pending, completed, failed, cancelled
 *   failed      → pending, in_progress (a retry), cancelled
 *   blocked     → cancelled (it leaves `blocked` on its own when its dependency recovers)
 *   completed, cancelled: final
 * `blocked` is never set by hand: a task whose dependency (`blockedBy`, directly or through
 * another task) failed, was cancelled or is blocked becomes blocked, and goes back to pending
 * when no such dependency is left. A task may start (in_progress) or complete only when every
 * task it is blocked by has completed. Dependencies must name existing tasks and form no cycle.
 */
export class TaskRuleError extends Error {
  override readonly name = 'TaskRuleError';
}

export interface TaskChange {
  subject?: string;
  description?: string;
  activeForm?: string;
  status?: Exclude<TaskListStatus, 'blocked'> | 'blocked';
  /** Tasks this one waits for. */
  addBlockedBy?: string[];
  /** Tasks that wait for this one. */
  addBlocks?: string[];
  owner?: string;
  /** Merged into the task's metadata; a key set to null is removed. */
  metadata?: Record<string, unknown>;
}

const MOVES: Record<TaskListStatus, readonly TaskListStatus[]> = {
  pending: ['in_progress', 'completed', 'failed', 'cancelled'],
  in_progress: ['pending', 'completed', 'failed', 'cancelled'],
  failed: ['pending', 'in_progress', 'cancelled'],
  blocked: ['cancelled'],
  completed: [],
  cancelled: [],
};

const STOPS_DEPENDENTS = new Set<TaskListStatus>(['failed', 'cancelled', 'blocked']);

export type TaskMap = Map<string, Task>;

/** Adds a new task (already numbered) to the list; returns the tasks written (it, and the ones it links to). */
export function addTask(tasks: TaskMap, task: Task, now: number): Task[] {
  if (tasks.has(task.id)) throw new TaskRuleError(`there is already a task #${task.id}`);
  const next = cloneAll(tasks);
  next.set(task.id, { ...task, blockedBy: [], blocks: [] });
  link(next, task.id, task.blockedBy, task.blocks);
  settleBlocked(next);
  return changedBetween(tasks, next, now);
}

/** Applies a change to task `id`; returns every task written (it, and dependents whose status followed). */
export function changeTask(tasks: TaskMap, id: string, change: TaskChange, now: number): Task[] {
  const current = tasks.get(id);
  if (!current) throw new TaskRuleError(`there is no task #${id}${knownIds(tasks)}`);
  const next = cloneAll(tasks);
  const task = next.get(id)!;
  if (change.subject !== undefined) task.subject = change.subject;
  if (change.description !== undefined) task.description = change.description;
  if (change.activeForm !== undefined) task.activeForm = change.activeForm;
  if (change.owner !== undefined) task.owner = change.owner;
  if (change.metadata !== undefined) {
    for (const [key, value] of Object.entries(change.metadata)) {
      if (value === null) delete task.metadata[key];
      else task.metadata[key] = value;
    }
  }
  link(next, id, change.addBlockedBy ?? [], change.addBlocks ?? []);
  settleBlocked(next);
  if (change.status !== undefined && change.status !== next.get(id)!.status) moveStatus(next, id, change.status);
  settleBlocked(next);
  return changedBetween(tasks, next, now);
}

/** Removes task `id` and every link to it; returns the other tasks written. */
export function removeTask(tasks: TaskMap, id: string, now: number): Task[] {
  if (!tasks.has(id)) throw new TaskRuleError(`there is no task #${id}${knownIds(tasks)}`);
  const next = cloneAll(tasks);
  next.delete(id);
  for (const task of next.values()) {
    task.blockedBy = task.blockedBy.filter((other) => other !== id);
    task.blocks = task.blocks.filter((other) => other !== id);
  }
  settleBlocked(next);
  return changedBetween(tasks, next, now).filter((task) => task.id !== id);
}

function moveStatus(tasks: TaskMap, id: string, to: TaskListStatus): void {
  const task = tasks.get(id)!;
  if (to === 'blocked') {
    throw new TaskRuleError(
      `a task is never set blocked by hand: it becomes blocked when a task it is blocked by fails or is cancelled. To make #${id} wait for another task, use addBlockedBy.`,
    );
  }
  if (!MOVES[task.status].includes(to)) {
    const allowed = MOVES[task.status];
    const why = task.status === 'blocked' ? ` because ${blockers(tasks, task)}` : '';
    throw new TaskRuleError(
      `task #${id} is ${task.status}${why}; it cannot move to ${to}${allowed.length > 0 ? ` (from ${task.status} it can move to ${allowed.join(', ')})` : ` (${task.status} is final)`}`,
    );
  }
  if (to === 'in_progress' || to === 'completed') {
    const waiting = task.blockedBy.map((other) => tasks.get(other)!).filter((other) => other.status !== 'completed');
    if (waiting.length > 0) {
      throw new TaskRuleError(
        `task #${id} cannot be ${to === 'completed' ? 'completed' : 'started'} yet: it is blocked by ${waiting.map((other) => `#${other.id} (${other.status})`).join(', ')}, which must complete first`,
      );
    }
  }
  task.status = to;
}

function link(tasks: TaskMap, id: string, blockedBy: readonly string[], blocks: readonly string[]): void {
  const task = tasks.get(id)!;
  for (const other of [...blockedBy, ...blocks]) {
    if (other === id) throw new TaskRuleError(`task #${id} cannot depend on itself`);
    if (!tasks.has(other)) throw new TaskRuleError(`there is no task #${other} to link to${knownIds(tasks)}`);
  }
  for (const other of blockedBy) addEdge(tasks, other, task.id);
  for (const other of blocks) addEdge(tasks, task.id, other);
}

/** `before` must complete before `after` may: after.blockedBy ∋ before, before.blocks ∋ after. */
function addEdge(tasks: TaskMap, before: string, after: string): void {
  if (reaches(tasks, after, before)) {
    throw new TaskRuleError(
      `#${after} cannot wait for #${before}: #${before} already waits (directly or not) for #${after}, which would be a cycle`,
    );
  }
  const waiting = tasks.get(after)!;
  const first = tasks.get(before)!;
  if (!waiting.blockedBy.includes(before)) waiting.blockedBy.push(before);
  if (!first.blocks.includes(after)) first.blocks.push(after);
}

/** Whether `to` waits, directly or not, for `from`… i.e. `from` reaches `to` through `blocks`. */
function reaches(tasks: TaskMap, from: string, to: string): boolean {
  const seen = new Set<string>();
  const stack = [from];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (id === to) return true;
    if (seen.has(id)) continue;
    seen.add(id);
    stack.push(...(tasks.get(id)?.blocks ?? []));
  }
  return false;
}

/** Blocks what a failed, cancelled or blocked task holds up, and frees what nothing holds up any more. */
function settleBlocked(tasks: TaskMap): void {
  for (let changed = true; changed; ) {
    changed = false;
    for (const task of tasks.values()) {
      const stopped = task.blockedBy.some((other) => STOPS_DEPENDENTS.has(tasks.get(other)?.status ?? 'pending'));
      if (stopped && (task.status === 'pending' || task.status === 'in_progress')) {
        task.status = 'blocked';
        changed = true;
      } else if (!stopped && task.status === 'blocked') {
        task.status = 'pending';
        changed = true;
      }
    }
  }
}

function blockers(tasks: TaskMap, task: Task): string {
  const stopped = task.blockedBy.map((other) => tasks.get(other)!).filter((other) => STOPS_DEPENDENTS.has(other.status));
  return `${stopped.map((other) => `#${other.id} ${other.status}`).join(', ')}`;
}

function cloneAll(tasks: TaskMap): TaskMap {
  return new Map([...tasks].map(([id, task]) => [id, structuredClone(task)]));
}

/** The tasks of `after` that differ from `before` (or are new), stamped with `now`. */
function changedBetween(before: TaskMap, after: TaskMap, now: number): Task[] {
  const changed: Task[] = [];
  for (const task of after.values()) {
    const old = before.get(task.id);
    if (old && JSON.stringify(old) === JSON.stringify(task)) continue;
    changed.push({ ...task, updatedAt: now });
  }
  return changed;
}

function knownIds(tasks: TaskMap): string {
  const ids = [...tasks.keys()];
  return ids.length === 0 ? ' (the list is empty)' : ` (the tasks are ${ids.map((id) => `#${id}`).join(', ')})`;
}
