import { z } from 'zod';
import { ToolError } from '../core/boundary/toolError.js';
import { defineTool, loadDescription } from '../core/tool/tool.js';
import { type Task, TaskIdSchema } from '../infra/tasks/task.js';
import { taskListFor } from '../infra/tasks/taskListService.js';
import { changeTask, type TaskChange, TaskRuleError } from '../infra/tasks/taskRules.js';
import { hookContextFor } from '../policy/hooks/hookContext.js';
import { runHooks } from '../policy/hooks/hookRunner.js';

export const TASK_UPDATE_TOOL = 'TaskUpdate';

export const TaskUpdateInputSchema = z.strictObject({
  taskId: TaskIdSchema.describe('The ID of the task to update'),
  subject: z.string().trim().min(1).optional().describe('New subject for the task'),
  description: z.string().trim().min(1).optional().describe('New description for the task'),
  activeForm: z.string().trim().min(1).optional().describe('Present continuous form shown while the task is in progress'),
  status: z
    .enum(['pending', 'in_progress', 'completed', 'failed', 'cancelled', 'blocked', 'deleted'])
    .optional()
    .describe('New status: pending, in_progress, completed, failed or cancelled; "deleted" removes the task'),
  addBlocks: z.array(TaskIdSchema).optional().describe('Task IDs that wait for this task'),
  addBlockedBy: z.array(TaskIdSchema).optional().describe('Task IDs this task waits for'),
  owner: z.string().trim().min(1).optional().describe('New owner for the task'),
  metadata: z.record(z.string(), z.unknown()).optional().describe('Metadata keys to merge into the task; a key set to null is removed'),
});
export type TaskUpdateInput = z.infer<typeof TaskUpdateInputSchema>;

/**
 * TaskUpdate (Claude Code's name and fields): changes one task of the session's task list.
 * The rules (the list's own are in tasks/taskRules.ts: status moves, dependencies, blocked):
 * - A change the rules refuse changes nothing and says why.
 * - Moving a task to completed runs the project's TaskCompleted hooks first; exit 2 (or a block)
 *   refuses it, the task keeps its status and the hook's reason is the error.
 * - `deleted` removes the task and every link to it (Claude Code's way to delete).
 * - The result says what changed, including tasks that became blocked or pending as a result.
 */
export const taskUpdateTool = defineTool({
  name: TASK_UPDATE_TOOL,
  description: loadDescription(import.meta.url, './taskUpdate.txt'),
  input: TaskUpdateInputSchema,
  level: 'read-only',
  readOnly: false,
  untrustedOutput: false,
  results: { kind: 'task-change' },
  async call(input, ctx) {
    const service = taskListFor(ctx.services, TASK_UPDATE_TOOL);
    const before = await service.store.list();
    const current = before.find((task) => task.id === input.taskId);
    if (!current) {
      const ids = before.map((task) => `#${task.id}`);
      throw new ToolError(
        `There is no task #${input.taskId}. ${ids.length > 0 ? `The tasks are ${ids.join(', ')}.` : 'The task list is empty.'} Call TaskList to see them.`,
      );
    }
    try {
      if (input.status === 'deleted') {
        const changed = await service.store.remove(current.id);
        return {
          content: `Task #${current.id} deleted.${followers(before, changed, current.id)}`,
          data: { success: true, taskId: current.id, deleted: true },
        };
      }
      const { taskId: _taskId, status, ...details } = input;
      const change: TaskChange = { ...details, ...(status !== undefined ? { status } : {}) };
      if (status === 'completed' && current.status !== 'completed' && ctx.services.hooks) {
        // The list's own rules first (a pure dry run): a hook is not asked about a change they refuse.
        changeTask(new Map(before.map((task) => [task.id, task])), current.id, change, Date.now());
        const outcome = await runHooks(
          ctx.services.hooks,
          'TaskCompleted',
          { task_id: current.id, task_subject: current.subject, task_description: current.description },
          hookContextFor(ctx),
        );
        if (outcome.blocked) {
          throw new ToolError(
            `A TaskCompleted hook refused to let task #${current.id} complete; it stays ${current.status}. The hook said: ${outcome.reason ?? 'no reason given'}`,
          );
        }
      }
      const { task, changed } = await service.store.update(current.id, change);
      const fields = Object.keys(input).filter((key) => key !== 'taskId');
      const statusChange = task.status !== current.status ? { from: current.status, to: task.status } : undefined;
      const what = statusChange ? `status ${statusChange.from} → ${statusChange.to}` : fields.length > 0 ? fields.join(', ') : 'nothing';
      return {
        content: `Updated task #${task.id}: ${what}.${followers(before, changed, task.id)}`,
        data: { success: true, taskId: task.id, updatedFields: fields, ...(statusChange ? { statusChange } : {}) },
      };
    } catch (error) {
      if (error instanceof TaskRuleError) throw new ToolError(`Task #${current.id} was not changed: ${error.message}.`);
      throw error;
    }
  },
});

/** ` Task #4 is now blocked.` for each other task whose status the write moved. */
function followers(before: readonly Task[], changed: readonly Task[], id: string): string {
  const was = new Map(before.map((task) => [task.id, task.status]));
  return changed
    .filter((task) => task.id !== id && was.get(task.id) !== task.status)
    .map((task) => ` Task #${task.id} is now ${task.status}.`)
    .join('');
}
