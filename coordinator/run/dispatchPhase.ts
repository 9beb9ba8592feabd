import { DONE_WELL, NOT_STARTED, SETTLED, SETTLED_UNMERGED } from '../../shared/core/events/taskStatusGroups.js';
import type { TaskRecord } from '../../shared/infra/board/runChange.js';
import type { AgentJobResult } from '../../shared/infra/queue/agentJob.js';
import { fillBrief } from '../briefs/briefTemplate.js';
import { resolveConflict } from '../merge/conflictResolution.js';
import type { Landing } from '../merge/landing.js';
import { MergeQueue } from '../merge/mergeQueue.js';
import { acceptFinished } from './finishedTask.js';
import { inheritedFor } from './inheritedFiles.js';
import type { RunContext } from './runContext.js';
import { subtaskBrief } from './subtaskBrief.js';

/**
 * Runs the plan's subtasks as a DAG. This is the coordinator's own scheduler, not BullMQ flows:
 * a worker must start from the integration head AFTER its dependencies merged, and that commit is
 * only known at the moment it is dispatched, whereas a flow fixes every child's payload up front.
 * Each finished branch goes to the merge queue at once (coordinator/merge/mergeQueue.ts), and a
 * task only starts after its dependencies merged. A failed task blocks its dependants;
 * independent tasks go on.
 */
export async function dispatchPhase(ctx: RunContext, landing: Landing): Promise<void> {
  await ctx.recorder.record({ type: 'run_phase', phase: 'dispatching' });
  const merges = new MergeQueue(ctx, (task, files, round, head) => resolveConflict(ctx, task, files, round, head), landing);
  const running = new Map<string, Promise<void>>();
  for (;;) {
    await blockDependants(ctx);
    if (!ctx.signal.aborted) startReady(ctx, merges, running);
    if (running.size === 0) break;
    await Promise.race(running.values());
  }
  await cancelUnstarted(ctx);
  await landing.releaseHeld();
}

function planTasks(ctx: RunContext): TaskRecord[] {
  const ids = ctx.recorder.state.run.plan?.subtasks.map((task) => task.id) ?? [];
  return ids.map((id) => ctx.recorder.state.tasks.get(id)!).filter(Boolean);
}

function isMerged(ctx: RunContext, id: string): boolean {
  const status = ctx.recorder.state.tasks.get(id)?.status;
  return status !== undefined && DONE_WELL.includes(status);
}

/** Starts every task not yet settled nor running whose dependencies have all merged. */
function startReady(ctx: RunContext, merges: MergeQueue, running: Map<string, Promise<void>>): void {
  for (const task of planTasks(ctx)) {
    // Pending, or (on a resumed run) queued, running or completed but not yet merged.
    if (SETTLED.includes(task.status) || running.has(task.task_id)) continue;
    if (!task.depends_on.every((dep) => isMerged(ctx, dep))) continue;
    const work = runTask(ctx, merges, task).finally(() => running.delete(task.task_id));
    running.set(task.task_id, work);
  }
}

/** Marks every pending task that depends (directly or not) on a task that can no longer merge. */
async function blockDependants(ctx: RunContext): Promise<void> {
  let changed = true;
  while (changed) {
    changed = false;
    for (const task of planTasks(ctx)) {
      if (task.status !== 'pending') continue;
      const dead = task.depends_on.find((dep) => {
        const status = ctx.recorder.state.tasks.get(dep)?.status;
        return status !== undefined && SETTLED_UNMERGED.includes(status);
      });
      if (dead === undefined) continue;
      const status = ctx.recorder.state.tasks.get(dead)!.status;
      await ctx.recorder.record({
        type: 'task_state',
        task_id: task.task_id,
        status: 'blocked',
        attempt: task.attempt,
        detail: `blocked: ${dead} ${status}`,
      });
      ctx.say(`${task.task_id} blocked: ${dead} ${status}`);
      changed = true;
    }
  }
}

/** Whatever never started (the run was aborted, or a budget ran out) is cancelled, saying so. */
async function cancelUnstarted(ctx: RunContext): Promise<void> {
  for (const task of planTasks(ctx)) {
    if (!NOT_STARTED.includes(task.status)) continue;
    await ctx.recorder.record({
      type: 'task_state',
      task_id: task.task_id,
      status: 'cancelled',
      attempt: task.attempt,
      detail: 'the run stopped before this task ran',
    });
  }
}

/** A task's worker, then its gates, then its merge. */
async function runTask(ctx: RunContext, merges: MergeQueue, task: TaskRecord): Promise<void> {
  const result = await dispatch(ctx, task, await merges.settledHead());
  if (result && (await acceptFinished(ctx, task, result))) await merges.merge(task, result);
}

/** The task's job, started from the integration head once no merge is being checked; undefined when it could not run. */
async function dispatch(ctx: RunContext, task: TaskRecord, base: string): Promise<AgentJobResult | undefined> {
  const { subtask, checks, fields } = subtaskBrief(ctx, task.task_id);
  try {
    return await ctx.jobs.run({
      taskId: task.task_id,
      role: ctx.role('worker'),
      prompt: fillBrief('worker-brief', { ...fields, task: ctx.task }),
      base,
      subtask: task.task_id,
      checks,
      ownedPaths: subtask.paths,
      fileState: inheritedFor(ctx, subtask.paths),
    });
  } catch (error) {
    ctx.say(`${task.task_id} failed: ${error instanceof Error ? error.message : String(error)}`);
    return undefined; // The job runner recorded the failure.
  }
}
