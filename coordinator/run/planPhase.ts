import { PlanOutputSchema } from '../../roles/outputs.js';
import { gitAt } from '../../shared/core/git/git.js';
import { bulletList, fillBrief } from '../briefs/briefTemplate.js';
import { PlanError, schedulePlan } from '../plan/dag.js';
import { type RunContext, RunFailure } from './runContext.js';

/**
 * One Plan agent gets the task and the distilled findings (those the host confirmed at the base
 * commit as facts, the others apart, as unverified claims with the reason); its plan (already checked by its
 * Report's schema) is checked again here as a DAG, overlapping owned paths are serialised, and
 * every subtask becomes a task of the run.
 */
export async function planPhase(ctx: RunContext): Promise<void> {
  const { recorder, jobs } = ctx;
  await recorder.record({ type: 'run_phase', phase: 'planning' });
  const findings = recorder.state.run.findings;
  const result = await jobs.run({
    taskId: '_plan',
    title: 'plan the task',
    role: ctx.role('plan'),
    prompt: fillBrief('plan-brief', {
      task: ctx.task,
      findings: bulletList((findings?.facts ?? []).filter((f) => f.verified).map((f) => `${f.fact} (${f.evidence})`)),
      unverified: bulletList(
        (findings?.facts ?? []).filter((f) => !f.verified).map((f) => `${f.fact} (${f.evidence}): ${f.reason ?? 'not confirmed'}`),
      ),
      questions: bulletList(findings?.questions ?? []),
      checks: ctx.checks.length > 0 ? ctx.checks.join(', ') : '(none found)',
    }),
    base: ctx.base,
  });
  if (result.status !== 'completed') throw new RunFailure(`the Plan agent did not report a plan: ${result.end_reason} (${result.detail})`);
  const plan = PlanOutputSchema.parse(result.report);
  const files = (await gitAt(ctx.repo).raw(['ls-tree', '-r', '--name-only', ctx.base])).split('\n').filter(Boolean);
  let scheduled;
  try {
    scheduled = schedulePlan(plan.subtasks, files);
  } catch (error) {
    if (error instanceof PlanError) throw new RunFailure(`the plan cannot be carried out: ${error.message}`);
    throw error;
  }
  await recorder.record({ type: 'plan', subtasks: scheduled.subtasks, risks: plan.risks });
  for (const task of scheduled.subtasks) {
    await recorder.record({
      type: 'task_created',
      task_id: task.id,
      role: 'worker',
      title: task.title,
      depends_on: task.depends_on,
      paths: task.paths,
      checks: task.checks ?? [],
    });
  }
  for (const note of scheduled.notes) {
    await recorder.record({ type: 'dag_note', task_id: note.task_id, message: note.message });
    ctx.say(note.message);
  }
}

/** The plan as a person reads it before approving it. */
export function describePlan(ctx: RunContext): string {
  const plan = ctx.recorder.state.run.plan;
  if (!plan) return '(no plan)';
  const lines = ['Plan:'];
  for (const task of plan.subtasks) {
    lines.push(`  ${task.id}: ${task.title}`);
    lines.push(`      owns: ${task.paths.join(', ')}`);
    if (task.depends_on.length > 0) lines.push(`      after: ${task.depends_on.join(', ')}`);
    if (task.checks === undefined) lines.push("      checks: the run's");
    else if (task.checks.length > 0) lines.push(`      checks: ${task.checks.join(', ')}`);
    else lines.push('      checks: none alone (judged by the integration checks right after its merge)');
  }
  if (plan.risks.length > 0) lines.push('Risks:', ...plan.risks.map((risk) => `  - ${risk}`));
  return lines.join('\n');
}
