import { z } from 'zod';

/**
 * A task of a task list: the coordinator's subtasks and an agent's own to-dos are the same thing,
 * kept in the same store (taskStore.ts). Ids are short strings: the coordinator uses its plan's
 * subtask ids, an agent's TaskCreate numbers them 1, 2, 3… Dependencies are kept both ways
 * (`blockedBy` on the waiting task, `blocks` on the one it waits for).
 */
export const TASK_LIST_STATUSES = ['pending', 'in_progress', 'completed', 'failed', 'blocked', 'cancelled'] as const;
export const TaskListStatusSchema = z.enum(TASK_LIST_STATUSES);
export type TaskListStatus = z.infer<typeof TaskListStatusSchema>;

export const TaskIdSchema = z
  .string()
  .trim()
  .regex(/^#?[A-Za-z0-9._-]{1,64}$/, 'a task id is 1-64 characters from A-Z a-z 0-9 . _ - (as TaskList shows it, "#" optional)')
  .transform((id) => id.replace(/^#/, ''));

export const TaskSchema = z.object({
  id: z.string(),
  subject: z.string(),
  description: z.string(),
  activeForm: z.string().optional(),
  status: TaskListStatusSchema,
  blockedBy: z.array(z.string()),
  blocks: z.array(z.string()),
  owner: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()),
  createdAt: z.number(),
  updatedAt: z.number(),
  /** Bumped on every write: a write based on an older version is refused and retried. */
  version: z.number().int().min(1),
  /** Creation order, for listing. */
  order: z.number(),
});
export type Task = z.infer<typeof TaskSchema>;

const json = <T extends z.ZodType>(schema: T) =>
  z
    .string()
    .transform((text, ctx) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'is not JSON' });
        return z.NEVER;
      }
    })
    .pipe(schema);

/** A task as its Redis hash holds it (every field a string), parsed back into a Task. */
export const TaskHashSchema = z
  .object({
    id: z.string(),
    subject: z.string(),
    description: z.string(),
    activeForm: z.string().optional(),
    status: TaskListStatusSchema,
    blockedBy: json(z.array(z.string())),
    blocks: json(z.array(z.string())),
    owner: z.string().optional(),
    metadata: json(z.record(z.string(), z.unknown())),
    createdAt: z.coerce.number(),
    updatedAt: z.coerce.number(),
    version: z.coerce.number().int().min(1),
    order: z.coerce.number(),
  })
  .transform((task): Task => task);

export function taskToHash(task: Task): Record<string, string> {
  const hash: Record<string, string> = {
    id: task.id,
    subject: task.subject,
    description: task.description,
    status: task.status,
    blockedBy: JSON.stringify(task.blockedBy),
    blocks: JSON.stringify(task.blocks),
    metadata: JSON.stringify(task.metadata),
    createdAt: String(task.createdAt),
    updatedAt: String(task.updatedAt),
    version: String(task.version),
    order: String(task.order),
  };
  if (task.activeForm !== undefined) hash.activeForm = task.activeForm;
  if (task.owner !== undefined) hash.owner = task.owner;
  return hash;
}

/** A task that checks what was done: Claude Code's test (its subject says "verif…") or `metadata.kind`. */
export function isVerificationTask(task: Pick<Task, 'subject' | 'metadata'>): boolean {
  return /\bverif/i.test(task.subject) || task.metadata.kind === 'verification';
}

/** `#3 [in_progress] Write the parser (blocked by #1, #2)`. */
export function describeTask(task: Task): string {
  const waits = task.blockedBy.length > 0 ? ` (blocked by ${task.blockedBy.map((id) => `#${id}`).join(', ')})` : '';
  const owner = task.owner ? ` [owner: ${task.owner}]` : '';
  return `#${task.id} [${task.status}] ${task.subject}${waits}${owner}`;
}
