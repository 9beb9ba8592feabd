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
        fact: nonEmpty.describe('One fact you saw in the code, naming the symbols in backticks.'),
        evidence: z
          .string()
          .regex(/^[^:\s][^:]*:\d+(-\d+)?$/, 'evidence must be "path:line" (or "path:start-end")')
          .describe('Where it shows: "path:line" or "path:start-end", the path relative to the repository root. The host checks it.'),
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
    .refine((id) => id !== INTEGRATION_TASK, `"${INTEGRATION_TASK}" is the run's own branch: pick another id`)
    .describe('A short id: letters, digits, `.`, `_`, `-`, starting with a letter or digit.'),
  title: nonEmpty.describe('A short title.'),
  instructions: nonEmpty.describe(
    'What the worker must do, on its own: the files, symbols and lines to change, the call sites that go with them, and how to tell it is done.',
  ),
  paths: z
    .array(nonEmpty)
    .min(1, 'name at least one path glob the subtask owns')
    .describe('Path globs the subtask owns: its worker may edit only these. Include the call sites of what it changes.'),
  depends_on: z.array(z.string()).describe('Ids of subtasks that must be merged before this one starts.'),
  checks: z
    .array(nonEmpty)
    .optional()
    .describe(
      "Commands that prove the subtask on its own branch (the test command); its worker must pass each, exactly as written. Leave it out to require the run's checks. `[]`: the subtask cannot pass them alone (one half of a rename, of a change its tests need together): nothing is required on its branch, and the run's checks judge it right after its merge.",
    ),
});

export const PlanOutputSchema = z
  .object({
    subtasks: z
      .array(PlanSubtaskSchema)
      .min(1, 'a plan needs at least one subtask')
      .describe('The subtasks; each leaves the build and its checks green on its own.'),
    risks: z.array(nonEmpty).describe('What may go wrong with this plan.'),
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

export const ClaimedCheckSchema = z.object({
  command: nonEmpty.describe('The check exactly as you ran it with Bash (a pipe after it, such as `| tail -20`, may be left out).'),
  exit_code: z.number().int().describe('The exit code it returned (its own, not that of a pipe after it).'),
});

export const WorkerOutputSchema = z.object({
  summary: nonEmpty.describe('What you changed and why, in a few sentences.'),
  unresolved: z
    .array(nonEmpty)
    .describe(
      'What you could not do, each item one sentence: a check that still fails, a file outside your paths that needs a change. [] when all is done. Anything here fails the subtask honestly.',
    ),
  claimed_checks: z
    .array(ClaimedCheckSchema)
    .describe('Each check you ran after your last edit, with its exit code. orca checks every one against its own record of your session.'),
});

export const VerificationOutputSchema = z.object({
  verdict: z
    .enum(['PASS', 'FAIL', 'PARTIAL'])
    .describe(
      'PASS: all you ran passed and your probes found nothing; FAIL: something is broken; PARTIAL: a limit of this environment kept you from checking something.',
    ),
  checks: z
    .array(
      z.object({
        command: nonEmpty.describe('The command exactly as you ran it with Bash.'),
        exit_code: z.number().int().describe('The exit code it returned.'),
        result: nonEmpty.describe('What its output showed (how many tests ran, what failed).'),
      }),
    )
    .describe('Each check and probe you ran. orca checks every one against its own record of your session.'),
  problems: z
    .array(
      z.object({
        file: nonEmpty.describe('The file, relative to the repository root.'),
        line: z.number().int().positive().optional().describe('The line, when known.'),
        what: nonEmpty.describe('What is wrong, and how you saw it.'),
      }),
    )
    .describe('Each problem you found; [] with PASS.'),
  /** Changes to tests the host flagged (weakened or removed assertions, skips) that you judged right, each with why. */
  confirmations: z
    .array(z.object({ flag: nonEmpty.describe('The flag id, as given.'), reason: nonEmpty.describe('Why the change is right.') }))
    .default([])
    .describe('Test changes orca flagged (weakened or removed assertions, skips) that you judged right, each with why.'),
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
