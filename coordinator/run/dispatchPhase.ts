import picomatch from 'picomatch';
import { WorkerOutputSchema } from '../../roles/outputs.js';
import { DONE_WELL, NOT_STARTED, SETTLED, SETTLED_UNMERGED } from '../../shared/core/events/taskStatusGroups.js';
import type { InheritedFileState } from '../../shared/core/files/readFileState.js';
import type { TaskRecord } from '../../shared/infra/board/runChange.js';
import type { AgentJobResult } from '../../shared/infra/queue/agentJob.js';
import { gateRunEvents } from '../../shared/infra/verify/evidence/evidenceEvents.js';
import { failedGatesText, type GateResult } from '../../shared/infra/verify/evidence/gateResult.js';
import { bulletList, fillBrief } from '../briefs/briefTemplate.js';
import type { MergeOutcome } from '../merge/integration.js';
import { mergeRefusal } from '../merge/mergeCheck.js';
import type { RunContext } from './runContext.js';

/** Conflict workers tried for one task before it fails with the conflict shown. */
const RESOLVE_ATTEMPTS = 2;

/**
 * Runs the plan's subtasks as a DAG. This is the coordinator's own scheduler, not BullMQ flows:
 * a worker must start from the integration head AFTER its dependencies merged, and that commit is
 * only known at the moment it is dispatched, whereas a flow fixes every child's payload up front.
 * Each finished branch is merged at once (merges are serialised, and a task only starts after its
 * dependencies merged, so merges follow dependency order). A failed task blocks its dependants;
 * independent tasks go on.
 */
export async function dispatchPhase(ctx: RunContext): Promise<void> {
  const { recorder } = ctx;
  await recorder.record({ type: 'run_phase', phase: 'dispatching' });
  const running = new Map<string, Promise<void>>();
  for (;;) {
    await blockDependants(ctx);
    const tasks = planTasks(ctx);
    if (!ctx.signal.aborted) {
      for (const task of tasks) {
        // Pending, or (on a resumed run) queued, running or completed but not yet merged.
        if (SETTLED.includes(task.status) || running.has(task.task_id)) continue;
        if (!task.depends_on.every((dep) => isMerged(ctx, dep))) continue;
        const work = runTask(ctx, task).finally(() => running.delete(task.task_id));
        running.set(task.task_id, work);
      }
    }
    if (running.size === 0) break;
    await Promise.race(running.values());
  }
  // Whatever never started (the run was aborted, or a budget ran out) is cancelled, saying so.
  for (const task of planTasks(ctx)) {
    if (NOT_STARTED.includes(task.status)) {
      await recorder.record({
        type: 'task_state',
        task_id: task.task_id,
        status: 'cancelled',
        attempt: task.attempt,
        detail: 'the run stopped before this task ran',
      });
    }
  }
}

function planTasks(ctx: RunContext): TaskRecord[] {
  const ids = ctx.recorder.state.run.plan?.subtasks.map((task) => task.id) ?? [];
  return ids.map((id) => ctx.recorder.state.tasks.get(id)!).filter(Boolean);
}

function isMerged(ctx: RunContext, id: string): boolean {
  const status = ctx.recorder.state.tasks.get(id)?.status;
  return status !== undefined && DONE_WELL.includes(status);
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

async function runTask(ctx: RunContext, task: TaskRecord): Promise<void> {
  const { recorder } = ctx;
  const subtask = recorder.state.run.plan!.subtasks.find((s) => s.id === task.task_id)!;
  const checks = requiredChecks(ctx, subtask.checks);
  const base = await ctx.integration.head();
  let result: AgentJobResult;
  try {
    result = await ctx.jobs.run({
      taskId: task.task_id,
      role: ctx.role('worker'),
      prompt: fillBrief('worker-brief', {
        id: task.task_id,
        title: subtask.title,
        instructions: subtask.instructions,
        paths: bulletList(subtask.paths),
        checks: checksText(checks),
        task: ctx.task,
      }),
      base,
      subtask: task.task_id,
      checks,
      ownedPaths: subtask.paths,
      fileState: inheritedFor(ctx, subtask.paths),
    });
  } catch (error) {
    ctx.say(`${task.task_id} failed: ${error instanceof Error ? error.message : String(error)}`);
    return; // The job runner recorded the failure.
  }
  const attempt = recorder.state.tasks.get(task.task_id)!.attempt;
  if (result.status !== 'completed') {
    // The gates of a Report refused before the agent gave up say what it had not done.
    const refusedBy = result.gates ? await recordGates(ctx, task, result.gates.gates) : [];
    const ended = `${result.end_reason}: ${result.detail}`;
    await recorder.record({
      type: 'task_state',
      task_id: task.task_id,
      status: result.status === 'aborted' ? 'aborted' : 'failed',
      attempt,
      detail: refusedBy.length > 0 ? `its last Report was refused by the gates (${failedGatesText(refusedBy)}); then ${ended}` : ended,
    });
    ctx.say(`${task.task_id} ${result.status}: ${result.end_reason}`);
    return;
  }
  const refused = await gateWorker(ctx, task, result);
  const unresolved = WorkerOutputSchema.safeParse(result.report).data?.unresolved ?? [];
  if (unresolved.length > 0) {
    const detail = `its worker reported it unresolved: ${unresolved.join('; ')}`;
    await recorder.record({ type: 'task_state', task_id: task.task_id, status: 'failed', attempt, detail });
    ctx.say(`${task.task_id} failed: ${detail}`);
    return;
  }
  if (refused) {
    await recorder.record({ type: 'task_state', task_id: task.task_id, status: 'failed', attempt, detail: refused });
    ctx.say(`${task.task_id} failed its gates: ${refused}`);
    return;
  }
  await recorder.record({ type: 'task_state', task_id: task.task_id, status: 'completed', attempt });
  await mergeTask(ctx, task, result);
}

/**
 * The gates on a Worker's report, as its worker computed them on the tree it committed: a report
 * whose claims do not hold (never run, another tree, no tests, another server) is not merged.
 * Weakened tests do not stop the merge: the integration audit puts them to the Verification agent.
 */
async function gateWorker(ctx: RunContext, task: TaskRecord, result: AgentJobResult): Promise<string | undefined> {
  if (!result.gates) return `${task.task_id}'s report reached the coordinator without its gates`;
  const failed = await recordGates(ctx, task, result.gates.gates);
  return failed.length > 0 ? `its report failed the gates: ${failedGatesText(failed)}` : undefined;
}

/** Records a report's gates on the task; returns those that stop a merge (all but assertions, which verification judges). */
async function recordGates(ctx: RunContext, task: TaskRecord, gates: readonly GateResult[]): Promise<GateResult[]> {
  for (const event of gateRunEvents(gates, task.task_id)) await ctx.recorder.record(event);
  return gates.filter((gate) => !gate.ok && gate.name !== 'assertions');
}

/** What a worker must run before it reports: its subtask's checks, or, when the plan named none, the run's integration checks. */
function requiredChecks(ctx: RunContext, named: readonly string[]): string[] {
  return named.length > 0 ? [...named] : [...ctx.checks];
}

function checksText(checks: readonly string[]): string {
  return checks.length > 0 ? checks.join(', ') : '(none named: run the relevant tests)';
}

async function mergeTask(ctx: RunContext, task: TaskRecord, result: AgentJobResult): Promise<void> {
  const { recorder } = ctx;
  const attempt = () => recorder.state.tasks.get(task.task_id)!.attempt;
  if (!result.commit || !result.branch) {
    await recorder.record({ type: 'merge', task_id: task.task_id, outcome: 'nothing', files: [], detail: 'the task changed no files' });
    await recorder.record({
      type: 'task_state',
      task_id: task.task_id,
      status: 'merged',
      attempt: attempt(),
      detail: 'no changes to merge',
    });
    return;
  }
  const owned = recorder.state.run.plan!.subtasks.find((s) => s.id === task.task_id)!.paths;
  if (await refuseMerge(ctx, task, result, owned, attempt())) return;
  let outcome: MergeOutcome = await ctx.integration.merge(
    result.branch,
    `Merge ${task.task_id}: ${task.title}\n\norca run ${recorder.runId}`,
  );
  let resolvedBy: string | undefined;
  for (let round = 1; outcome.kind === 'conflict' && round <= RESOLVE_ATTEMPTS && !ctx.signal.aborted; round += 1) {
    const files = outcome.files;
    await recorder.record({ type: 'merge', task_id: task.task_id, outcome: 'conflict', files, detail: outcome.detail.slice(0, 2_000) });
    ctx.say(`${task.task_id} conflicts in ${files.join(', ')}: a worker redoes it on the integration head (attempt ${round})`);
    const resolved = await resolveConflict(ctx, task, files, round);
    if (!resolved) break;
    if (await refuseMerge(ctx, task, resolved, owned, attempt())) return;
    resolvedBy = resolved.branch!;
    outcome = await ctx.integration.merge(
      resolvedBy,
      `Merge ${task.task_id} (redone on the integration head): ${task.title}\n\norca run ${recorder.runId}`,
    );
  }
  if (outcome.kind === 'conflict') {
    await recorder.record({
      type: 'merge',
      task_id: task.task_id,
      outcome: 'failed',
      files: outcome.files,
      detail: outcome.detail.slice(0, 2_000),
    });
    await recorder.record({
      type: 'task_state',
      task_id: task.task_id,
      status: 'failed',
      attempt: attempt(),
      detail: `merge conflict in ${outcome.files.join(', ')} not resolved after ${RESOLVE_ATTEMPTS} attempt(s); its branch ${result.branch} is kept`,
    });
    ctx.say(`${task.task_id} failed: unresolved conflict in ${outcome.files.join(', ')}`);
    return;
  }
  const files = outcome.kind === 'merged' ? outcome.files : [];
  await recorder.record({
    type: 'merge',
    task_id: task.task_id,
    outcome: resolvedBy ? 'resolved' : outcome.kind,
    commit: outcome.commit,
    files,
  });
  await recorder.record({
    type: 'task_state',
    task_id: task.task_id,
    status: 'merged',
    attempt: attempt(),
    detail: `merged into the integration branch as ${outcome.commit?.slice(0, 12) ?? '(no commit)'}${resolvedBy ? ', redone on the integration head after a merge conflict' : ''}`,
  });
  ctx.say(`${task.task_id} merged${resolvedBy ? ' (after resolving a conflict)' : ''}`);
}

/**
 * The coordinator's check of a branch before it merges it: one that touches a guarded path or a
 * path its task does not own is not merged, and the task fails saying why (run JSON, board).
 */
async function refuseMerge(ctx: RunContext, task: TaskRecord, result: AgentJobResult, owned: string[], attempt: number): Promise<boolean> {
  const refused = await mergeRefusal(ctx.integration.repo, result.base, result.commit!, owned);
  if (!refused) return false;
  await ctx.recorder.record({ type: 'merge', task_id: task.task_id, outcome: 'refused', files: [], detail: refused });
  await ctx.recorder.record({
    type: 'task_state',
    task_id: task.task_id,
    status: 'failed',
    attempt,
    detail: `its branch ${result.branch} was ${refused}`,
  });
  ctx.say(`${task.task_id} failed: its branch was ${refused}`);
  return true;
}

async function resolveConflict(ctx: RunContext, task: TaskRecord, files: string[], round: number): Promise<AgentJobResult | undefined> {
  const subtask = ctx.recorder.state.run.plan!.subtasks.find((s) => s.id === task.task_id)!;
  const checks = requiredChecks(ctx, subtask.checks);
  const result = await ctx.jobs
    .run({
      taskId: `_resolve-${task.task_id}-${round}`,
      title: `redo ${task.task_id} on the integration head (merge conflict)`,
      role: ctx.role('worker'),
      prompt: fillBrief('resolve-brief', {
        id: task.task_id,
        title: subtask.title,
        instructions: subtask.instructions,
        paths: bulletList(subtask.paths),
        files: bulletList(files),
        checks: checksText(checks),
      }),
      base: await ctx.integration.head(),
      subtask: task.task_id,
      checks,
      // The worker that redoes a task owns what the task owned.
      ownedPaths: subtask.paths,
    })
    .catch(() => undefined);
  return result && result.status === 'completed' && result.branch ? result : undefined;
}

/**
 * The run's file knowledge a subtask inherits: what the Explore agents read (of the base commit's
 * own bytes: files whose hash the host could not confirm there are left out), for the files the
 * subtask owns, with the lines seen of a partial view. The worker keeps an entry only if the file
 * is byte-identical in its worktree.
 */
function inheritedFor(ctx: RunContext, paths: string[]): InheritedFileState[] {
  const files = ctx.recorder.state.run.findings?.files ?? [];
  const match = picomatch(paths, { dot: true });
  return files
    .filter((file) => file.verified && match(file.path))
    .map((file) => ({ path: file.path, hash: file.hash, partial: file.partial, ...(file.partial ? { seen: file.seen ?? [] } : {}) }));
}
