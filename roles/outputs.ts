import { z } from 'zod';
import { INTEGRATION_TASK } from '../shared/core/git/orcaBranch.js';
import type { OutputKind } from '../shared/infra/queue/agentJob.js';
import { findCycle } from './planGraph.js';

/**
 * What each role hands back: the input of its `Report` tool (docs/tools.md, "Report: the roles'
 * outputs"). The host validates a Report against these before anyone reads it.
 */

const nonEmpty = z.string().trim().min(1);

export const ExploreOutputSchema = z.object({
  findings: z
    .array(
      z.object({
        fact: nonEmpty,
        evidence: z.string().regex(/^[^:\s][^:]*:\d+(-\d+)?$/, 'evidence must be "path:line" (or "path:start-end")'),
      }),
    )
    .describe('What you established, each with the path:line that shows it.'),
  files: z.array(nonEmpty).describe('The files you read.'),
  questions: z.array(nonEmpty).describe('What you could not settle from the code.'),
});

export const PlanSubtaskSchema = z.object({
  // Starts with a letter or digit and stays short: orca's own jobs are named `_plan`, `_resolve-<id>-1`, ….
  id: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,47}$/, 'ids are 1-48 of A-Z a-z 0-9 . _ -, starting with a letter or digit')
    .refine((id) => !id.includes('..'), 'ids may not contain ".."')
    // Its branch would be the run's integration branch, orca/<run>/integration.
    .refine((id) => id !== INTEGRATION_TASK, `"${INTEGRATION_TASK}" is the run's own branch: pick another id`),
  title: nonEmpty,
  instructions: nonEmpty,
  paths: z.array(nonEmpty).min(1, 'name at least one path glob the subtask owns'),
  depends_on: z.array(z.string()),
  checks: z.array(nonEmpty),
});

export const PlanOutputSchema = z
  .object({
    subtasks: z.array(PlanSubtaskSchema).min(1, 'a plan needs at least one subtask'),
    risks: z.array(nonEmpty),
  })
  .superRefine((plan, ctx) => {
    // Checked here, in the Report's schema, so the Plan agent is told and can fix its plan.
    const ids = plan.subtasks.map((task) => task.id);
    plan.subtasks.forEach((task, index) => {
      if (ids.indexOf(task.id) !== index)
        ctx.addIssue({ code: 'custom', path: ['subtasks', index, 'id'], message: `id ${task.id} is used twice` });
      task.depends_on.forEach((dep, d) => {
        if (!ids.includes(dep)) {
          ctx.addIssue({
            code: 'custom',
            path: ['subtasks', index, 'depends_on', d],
            message: `${dep} is not a subtask id (ids: ${ids.join(', ')})`,
          });
        } else if (dep === task.id) {
          ctx.addIssue({ code: 'custom', path: ['subtasks', index, 'depends_on', d], message: `${task.id} cannot depend on itself` });
        }
      });
    });
    const cycle = findCycle(plan.subtasks);
    if (cycle) ctx.addIssue({ code: 'custom', path: ['subtasks'], message: `the dependencies form a cycle: ${cycle.join(' → ')}` });
  });

export const ClaimedCheckSchema = z.object({ command: nonEmpty, exit_code: z.number().int() });

export const WorkerOutputSchema = z.object({
  summary: nonEmpty,
  unresolved: z.array(nonEmpty),
  claimed_checks: z.array(ClaimedCheckSchema),
});

export const VerificationOutputSchema = z.object({
  verdict: z.enum(['PASS', 'FAIL', 'PARTIAL']),
  checks: z.array(z.object({ command: nonEmpty, exit_code: z.number().int(), result: nonEmpty })),
  problems: z.array(z.object({ file: nonEmpty, line: z.number().int().positive().optional(), what: nonEmpty })),
  /** Changes to tests the host flagged (weakened or removed assertions, skips) that you judged right, each with why. */
  confirmations: z.array(z.object({ flag: nonEmpty, reason: nonEmpty })).default([]),
});

export const CoordinatorOutputSchema = z.object({
  questions: z.array(nonEmpty).describe('What to explore before planning; empty skips exploring.'),
});

export type ExploreOutput = z.infer<typeof ExploreOutputSchema>;
export type PlanSubtask = z.infer<typeof PlanSubtaskSchema>;
export type PlanOutput = z.infer<typeof PlanOutputSchema>;
export type WorkerOutput = z.infer<typeof WorkerOutputSchema>;
export type VerificationOutput = z.infer<typeof VerificationOutputSchema>;
export type CoordinatorOutput = z.infer<typeof CoordinatorOutputSchema>;

const SCHEMAS: Record<OutputKind, z.ZodType> = {
  coordinator: CoordinatorOutputSchema,
  explore: ExploreOutputSchema,
  plan: PlanOutputSchema,
  worker: WorkerOutputSchema,
  verification: VerificationOutputSchema,
};

export function outputSchema(kind: OutputKind): z.ZodType {
  return SCHEMAS[kind];
}

/** How to read the checks a role's Report claims to have run; undefined for roles that claim none. */
export function claimsReader(kind: OutputKind): ((report: unknown) => Array<{ command: string; exit_code: number }>) | undefined {
  if (kind === 'worker') return (report) => WorkerOutputSchema.parse(report).claimed_checks;
  if (kind === 'verification')
    return (report) => VerificationOutputSchema.parse(report).checks.map(({ command, exit_code }) => ({ command, exit_code }));
  return undefined;
}

/** Whether a role's Report owns up to failure (a Worker's non-empty `unresolved`); undefined for roles whose reports cannot. */
export function failureAdmission(kind: OutputKind): ((report: unknown) => boolean) | undefined {
  if (kind !== 'worker') return undefined;
  return (report) => (WorkerOutputSchema.safeParse(report).data?.unresolved.length ?? 0) > 0;
}
