import type { PlanSubtask } from '../../roles/outputs.js';
import { bulletList } from '../briefs/briefTemplate.js';
import type { RunContext } from './runContext.js';

/**
 * What a plan subtask tells the worker that carries it out, first (worker-brief) or again after a
 * merge conflict (resolve-brief): the brief's fields, and the checks it must run before it reports.
 */
export interface SubtaskBrief {
  subtask: PlanSubtask;
  /** Its subtask's checks, or, when the plan left them out, the run's integration checks; none for `checks: []`. */
  checks: string[];
  /** False when the plan says `checks: []`: the subtask cannot be checked alone (checkedAlone). */
  checkedAlone: boolean;
  fields: { id: string; title: string; instructions: string; paths: string; checks: string };
}

export function subtaskBrief(ctx: RunContext, taskId: string): SubtaskBrief {
  const subtask = ctx.recorder.state.run.plan?.subtasks.find((one) => one.id === taskId);
  if (!subtask) throw new Error(`task ${taskId} is not a subtask of the run's plan: only a plan's subtasks are dispatched`);
  const alone = checkedAlone(subtask);
  const checks = subtask.checks === undefined ? [...ctx.checks] : [...subtask.checks];
  const fields = {
    id: subtask.id,
    title: subtask.title,
    instructions: subtask.instructions,
    paths: bulletList(subtask.paths),
    checks:
      checks.length > 0
        ? checks.join(', ')
        : alone
          ? '(none named: run the relevant tests)'
          : "none are required of your branch alone (the plan says it cannot pass them without the other subtasks' work); the run's checks judge the merged tree right after your merge",
  };
  return { subtask, checks, checkedAlone: alone, fields };
}

/**
 * Whether a subtask's branch is held to checks on its own: not when its plan says `checks: []`
 * (it is then judged only by the integration checks right after its merge); an absent `checks`
 * keeps the rule that the run's checks are required of it.
 */
export function checkedAlone(subtask: Pick<PlanSubtask, 'checks'> | undefined): boolean {
  return subtask?.checks === undefined || subtask.checks.length > 0;
}
