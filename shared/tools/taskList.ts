import { z } from 'zod';
import { defineTool, loadDescription } from '../core/tool/tool.js';
import { describeTask } from '../infra/tasks/task.js';
import { taskListFor } from '../infra/tasks/taskListService.js';

export const TASK_LIST_TOOL = 'TaskList';

export const TaskListInputSchema = z.strictObject({});

/**
 * TaskList (Claude Code's name; no input): the session's task list, one line per task in creation
 * order: `#id [status] subject (blocked by #a, #b) [owner: x]`. An empty list says it is empty.
 */
export const taskListTool = defineTool({
  name: TASK_LIST_TOOL,
  description: loadDescription(import.meta.url, './taskList.txt'),
  input: TaskListInputSchema,
  level: 'read-only',
  readOnly: true,
  untrustedOutput: false,
  async call(_input, ctx) {
    const tasks = await taskListFor(ctx.services, TASK_LIST_TOOL).store.list();
    if (tasks.length === 0) return { content: 'No tasks found: the task list is empty.', data: { tasks: [] } };
    return {
      content: tasks.map(describeTask).join('\n'),
      data: {
        tasks: tasks.map((task) => ({
          id: task.id,
          subject: task.subject,
          status: task.status,
          blockedBy: task.blockedBy,
          owner: task.owner,
        })),
      },
    };
  },
});
