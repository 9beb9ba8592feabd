import { WorkerOutputSchema } from '../../roles/outputs.js';
import type { TaskRecord } from '../../shared/infra/board/runChange.js';
import type { AgentJobResult } from '../../shared/infra/queue/agentJob.js';
import { blockingGates } from '../../shared/infra/verify/gates/blockingGates.js';
import { failedGatesText } from '../../shared/infra/verify/gates/gate.js';
import type { GateResult } from '../../shared/infra/verify/gates/gateList.js';
import { gateRunEvents } from '../../shared/infra/verify/gates/gateRunEvents.js';
import { howItEnded } from './howItEnded.js';
import type { RunContext } from './runContext.js';

/**
 * Whether a Worker's finished job may merge. It may not when its agent did not complete, when it
 * reported something unresolved, or when its report failed a gate that refuses a merge (as its
 * worker computed them on the tree it committed: claims that do not hold, checks on another tree,
 * no tests, another server). The task then fails saying why; else it is `completed`. Its gates are
 * recorded on the task either way.
 */
export async function acceptFinished(ctx: RunContext, task: TaskRecord, result: AgentJobResult): Promise<boolean> {
  const why = result.status === 'completed' ? await whyNotMerged(ctx, task, result) : await whyItEnded(ctx, task, result);
  const attempt = ctx.recorder.state.tasks.get(task.task_id)!.attempt;
  if (why === undefined) {
    await ctx.recorder.record({ type: 'task_state', task_id: task.task_id, status: 'completed', attempt });
    return true;
  }
  await ctx.recorder.record({ type: 'task_state', task_id: task.task_id, status: why.status, attempt, detail: why.detail });
  ctx.say(`${task.task_id} ${why.said}`);
  return false;
}

interface Unmerged {
  status: 'failed' | 'aborted';
  detail: string;
  /** What the person watching is told after the task's id. */
  said: string;
}

/** A job that did not complete: how it ended, after the gates of a Report refused before the agent gave up. */
async function whyItEnded(ctx: RunContext, task: TaskRecord, result: AgentJobResult): Promise<Unmerged> {
  const refusedBy = result.gates ? await recordGates(ctx, task, result.gates.gates) : [];
  const ended = howItEnded(result);
  return {
    status: result.status === 'aborted' ? 'aborted' : 'failed',
    detail: refusedBy.length > 0 ? `its last Report was refused by the gates (${failedGatesText(refusedBy)}); then ${ended}` : ended,
    said: result.status === result.end_reason ? `${result.status}: ${result.detail}` : `${result.status}: ${result.end_reason}`,
  };
}

async function whyNotMerged(ctx: RunContext, task: TaskRecord, result: AgentJobResult): Promise<Unmerged | undefined> {
  const refused = result.gates
    ? gatesRefusal(await recordGates(ctx, task, result.gates.gates))
    : `${task.task_id}'s report reached the coordinator without its gates`;
  const unresolved = WorkerOutputSchema.safeParse(result.report).data?.unresolved ?? [];
  if (unresolved.length > 0) {
    const detail = `its worker reported it unresolved: ${unresolved.join('; ')}`;
    return { status: 'failed', detail, said: `failed: ${detail}` };
  }
  if (refused) return { status: 'failed', detail: refused, said: `failed its gates: ${refused}` };
  return undefined;
}

function gatesRefusal(failed: readonly GateResult[]): string | undefined {
  return failed.length > 0 ? `its report failed the gates: ${failedGatesText(failed)}` : undefined;
}

/** Records a report's gates on the task; returns those that stop its merge (blockingGates.ts). */
async function recordGates(ctx: RunContext, task: TaskRecord, gates: readonly GateResult[]): Promise<GateResult[]> {
  for (const event of gateRunEvents(gates, task.task_id)) await ctx.recorder.record(event);
  return blockingGates(gates, { at: 'merge' });
}
