import { z } from 'zod';
import { ToolError } from '../core/boundary/toolError.js';
import { defineTool, loadDescription } from '../core/tool/tool.js';
import { taskListFor } from '../infra/tasks/taskListService.js';
import { TaskRuleError } from '../infra/tasks/taskRules.js';
import { hookContextFor } from '../policy/hooks/hookContext.js';
import { runHooks } from '../policy/hooks/hookRunner.js';

export const TASK_CREATE_TOOL = 'TaskCreate';

export const TaskCreateInputSchema = z.strictObject({
  subject: z.string().trim().min(1, 'give the task a subject (a short title)').describe('A brief title for the task, in the imperative'),
  description: z.string().trim().min(1, 'say what needs to be done').describe('What needs to be done'),
  activeForm: z
    .string()
    .trim()
    .min(1)
    .optional()
    .describe('Present continuous form shown while the task is in progress (e.g. "Running tests")'),
  metadata: z.record(z.string(), z.unknown()).optional().describe('Arbitrary metadata to attach to the task'),
});
export type TaskCreateInput = z.infer<typeof TaskCreateInputSchema>;

/**
 * TaskCreate (Claude Code's name and fields): adds a pending task to the session's task list.
 * The rules:
 * - The list is the one the session's (ctx.services.taskList); a session without one is
 *   told so, as an error, never handed an empty success.
 * - The project's TaskCreated hooks run first, with the id the task will get; exit 2 (or a
 *   block) refuses it: nothing is created and the hook's reason is the error.
 * - The result names the new id; the task links to others through TaskUpdate.
 */
export const taskCreateTool = defineTool({
  name: TASK_CREATE_TOOL,
  description: loadDescription(import.meta.url, './taskCreate.txt'),
  input: TaskCreateInputSchema,
  // The task list is not the workspace: any mode may keep one.
  level: 'read-only',
  readOnly: false,
  untrustedOutput: false,
  results: { kind: 'task-change' },
  async call(input, ctx) {
    const service = taskListFor(ctx.services, TASK_CREATE_TOOL);
    const id = await service.store.reserveId();
    if (ctx.services.hooks) {
      const outcome = await runHooks(
        ctx.services.hooks,
        'TaskCreated',
        { task_id: id, task_subject: input.subject, task_description: input.description },
        hookContextFor(ctx),
      );
      if (outcome.blocked)
        throw new ToolError(
          `A TaskCreated hook refused the task "${input.subject}"; it was not created. The hook said: ${outcome.reason ?? 'no reason given'}`,
        );
    }
    try {
      const { task } = await service.store.create({
        id,
        subject: input.subject,
        description: input.description,
        activeForm: input.activeForm,
        metadata: input.metadata,
      });
      return { content: `Task #${task.id} created successfully: ${task.subject}`, data: { task: { id: task.id, subject: task.subject } } };
    } catch (error) {
      if (error instanceof TaskRuleError) throw new ToolError(error.message);
      throw error;
    }
  },
});
