import type { PlanSubtask } from '../../roles/outputs.js';
import { bulletList } from '../briefs/briefTemplate.js';
import type { RunContext } from './runContext.js';

/**
 * What a plan subtask tells the worker that carries it out, first (worker-brief) or again after a
 * merge conflict (resolve-brief): the brief's fields, and the checks it must run before it reports.
 */
export interface SubtaskBrief {
  subtask: PlanSubtask;
  /** Its subtask's checks, or, when the plan named none, the run's integration checks. */
  checks: string[];
  fields: { id: string; title: string; instructions: string; paths: string; checks: string };
}

export function subtaskBrief(ctx: RunContext, taskId: string): SubtaskBrief {
  const subtask = ctx.recorder.state.run.plan?.subtasks.find((one) => one.id === taskId);
  if (!subtask) throw new Error(`task ${taskId} is not a subtask of the run's plan: only a plan's subtasks are dispatched`);
  const checks = subtask.checks.length > 0 ? [...subtask.checks] : [...ctx.checks];
  const fields = {
    id: subtask.id,
    title: subtask.title,
    instructions: subtask.instructions,
    paths: bulletList(subtask.paths),
    checks: checks.length > 0 ? checks.join(', ') : '(none named: run the relevant tests)',
  };
  return { subtask, checks, fields };
}
