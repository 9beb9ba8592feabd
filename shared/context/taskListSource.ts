/**
 * Where an autocompaction finds the task list to put back. The task-list layer registers an
 * object of this shape in the session's services under TASK_LIST_SERVICE; when nothing is
 * registered the hand-off says the session keeps no task list.
 */
export const TASK_LIST_SERVICE = 'orca.taskList';

export interface TaskSnapshot {
  id: string;
  subject: string;
  status: string;
}

export interface TaskListSource {
  list(): TaskSnapshot[] | Promise<TaskSnapshot[]>;
}

export function taskListIn(services: Map<string, unknown>): TaskListSource | undefined {
  const source = services.get(TASK_LIST_SERVICE);
  if (source !== null && typeof source === 'object' && typeof (source as TaskListSource).list === 'function') return source as TaskListSource;
  return undefined;
}

export function describeTask(task: TaskSnapshot): string {
  return `#${task.id} [${task.status}] ${task.subject}`;
}
