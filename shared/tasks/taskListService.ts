import { TASK_LIST_SERVICE, type TaskListSource } from '../context/taskListSource.js';
import type { HooksConfig } from '../hooks/hooksConfig.js';
import { ToolError } from '../tools/toolError.js';
import type { TaskStore } from './taskStore.js';

/**
 * How a session's tools reach its task list: the store and the hooks that guard it
 * (TaskCreated, TaskCompleted), registered in the session's services. The same list is also
 * registered under the context layer's TASK_LIST_SERVICE, so an autocompaction puts it back.
 */
export const TASK_STORE_SERVICE = 'orca.taskStore';

export interface TaskListService {
  store: TaskStore;
  /** The project's hooks; none registered means TaskCreated/TaskCompleted hooks are not run. */
  hooks?: HooksConfig;
}

export function attachTaskList(services: Map<string, unknown>, service: TaskListService): void {
  services.set(TASK_STORE_SERVICE, service);
  const source: TaskListSource = {
    list: async () => (await service.store.list()).map((task) => ({ id: task.id, subject: task.subject, status: task.status })),
  };
  services.set(TASK_LIST_SERVICE, source);
}

export function taskListServiceIn(services: Map<string, unknown>): TaskListService | undefined {
  const found = services.get(TASK_STORE_SERVICE);
  if (found !== null && typeof found === 'object' && typeof (found as TaskListService).store?.list === 'function') return found as TaskListService;
  return undefined;
}

/** The task list a Task tool works on, or the error that says the session has none. */
export function taskListFor(services: Map<string, unknown>, tool: string): TaskListService {
  const service = taskListServiceIn(services);
  if (!service) throw new ToolError(`${tool} is not available: this session has no task list.`);
  return service;
}
