/**
 * The task list as an autocompaction reads it to put it back: the session's task store
 * (`services.taskList.store`) has this shape. Without one the hand-off says the session keeps no
 * task list.
 */
export interface TaskSnapshot {
  id: string;
  subject: string;
  status: string;
}

export interface TaskListSource {
  list(): TaskSnapshot[] | Promise<TaskSnapshot[]>;
}

export function describeTask(task: TaskSnapshot): string {
  return `#${task.id} [${task.status}] ${task.subject}`;
}
