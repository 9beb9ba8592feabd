import type { Task } from './task.js';
import type { TaskChange } from './taskRules.js';

/**
 * A task list, wherever it is kept. The coordinator keeps its subtasks in one (list `run`), and
 * each agent its own to-dos (list = its task id), in the same store, through the same rules
 * (taskRules.ts). The Redis implementation is redisTaskStore.ts.
 */
export interface NewTask {
  /** The coordinator names its subtasks; an agent's tasks are numbered by the store. */
  id?: string;
  subject: string;
  description: string;
  activeForm?: string;
  blockedBy?: string[];
  blocks?: string[];
  owner?: string;
  metadata?: Record<string, unknown>;
}

export interface TaskWrite {
  /** The task as it is after the write. */
  task: Task;
  /** Every task the write changed, this one included (dependents whose status followed). */
  changed: Task[];
}

export interface TaskStore {
  list(): Promise<Task[]>;
  get(id: string): Promise<Task | undefined>;
  create(task: NewTask): Promise<TaskWrite>;
  update(id: string, change: TaskChange): Promise<TaskWrite>;
  /** Removes the task and every link to it; returns the other tasks that changed. */
  remove(id: string): Promise<Task[]>;
  /** An id for a task about to be created (what `create` would number it), for hooks that run first. */
  reserveId(): Promise<string>;
}
