import { ToolError } from '../../core/boundary/toolError.js';
import type { SessionServices } from '../../core/tool/tool.js';
import type { TaskStore } from './taskStore.js';

/**
 * How a session's tools reach its task list: the store, in the session's services. An
 * autocompaction reads the same list to put it back; the hooks that guard it (TaskCreated,
 * TaskCompleted) are the session's own (`services.hooks`).
 */
export interface TaskListService {
  store: TaskStore;
}

declare module '../../core/tool/tool.js' {
  interface SessionServices {
    taskList?: TaskListService;
  }
}

/** The task list a Task tool works on, or the error that says the session has none. */
export function taskListFor(services: SessionServices, tool: string): TaskListService {
  if (!services.taskList) throw new ToolError(`${tool} is not available: this session has no task list.`);
  return services.taskList;
}
