import type { TaskStatus } from '../../core/events/runEvent.js';

/**
 * A task's status as the task tables print it. `merged` is said only of a task whose merge put
 * something into the integration branch; one whose merge had nothing to add (it changed no files)
 * is done well too, but `unchanged`.
 */
export function taskStatusWord(task: { status: TaskStatus; merge_outcome?: string }): string {
  return task.status === 'merged' && task.merge_outcome === 'nothing' ? 'unchanged' : task.status;
}
