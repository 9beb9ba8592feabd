import picomatch from 'picomatch';
import type { PlanSubtask } from '../../roles/outputs.js';
import { findCycle } from '../../roles/planGraph.js';

/** A plan that cannot be carried out as given: the message names the subtask and the problem. */
export class PlanError extends Error {
  override readonly name = 'PlanError';
}

export interface ScheduledPlan {
  subtasks: PlanSubtask[];
  /** Why the coordinator changed the plan (one line each, shown on the board). */
  notes: Array<{ task_id: string; message: string }>;
}

/**
 * Checks a plan's DAG and makes it safe to run: unknown ids, self-dependencies and cycles are
 * errors; two subtasks that could run at the same time and own overlapping paths are serialised
 * (the later one in the plan comes to depend on the earlier), so no two agents ever edit the
 * same file at once. `repoFiles` are the files at the base commit, for telling whether two globs
 * can meet.
 */
export function schedulePlan(subtasks: readonly PlanSubtask[], repoFiles: readonly string[]): ScheduledPlan {
  checkStructure(subtasks);
  const deps = new Map(subtasks.map((task) => [task.id, new Set(task.depends_on)]));
  const notes: ScheduledPlan['notes'] = [];
  for (let j = 0; j < subtasks.length; j += 1) {
    for (let i = 0; i < j; i += 1) {
      const earlier = subtasks[i]!;
      const later = subtasks[j]!;
      if (reaches(deps, later.id, earlier.id) || reaches(deps, earlier.id, later.id)) continue;
      const shared = overlap(earlier.paths, later.paths, repoFiles);
      if (shared === undefined) continue;
      deps.get(later.id)!.add(earlier.id);
      notes.push({
        task_id: later.id,
        message: `${later.id} now waits for ${earlier.id}: both own ${shared}, and two agents must not edit one file at once`,
      });
    }
  }
  return {
    subtasks: subtasks.map((task) => ({ ...task, depends_on: [...deps.get(task.id)!] })),
    notes,
  };
}

function checkStructure(subtasks: readonly PlanSubtask[]): void {
  const ids = new Set<string>();
  for (const task of subtasks) {
    if (ids.has(task.id)) throw new PlanError(`subtask id ${task.id} is used twice`);
    ids.add(task.id);
  }
  for (const task of subtasks) {
    for (const dep of task.depends_on) {
      if (dep === task.id) throw new PlanError(`subtask ${task.id} depends on itself`);
      if (!ids.has(dep))
        throw new PlanError(`subtask ${task.id} depends on ${dep}, which is not in the plan (ids: ${[...ids].join(', ')})`);
    }
  }
  const cycle = findCycle(subtasks);
  if (cycle) throw new PlanError(`the plan's dependencies form a cycle: ${cycle.join(' → ')}`);
}

/** Whether `from` depends on `to`, directly or through others. */
function reaches(deps: Map<string, Set<string>>, from: string, to: string): boolean {
  const seen = new Set<string>();
  const queue = [from];
  while (queue.length > 0) {
    const id = queue.pop()!;
    for (const dep of deps.get(id) ?? []) {
      if (dep === to) return true;
      if (!seen.has(dep)) {
        seen.add(dep);
        queue.push(dep);
      }
    }
  }
  return false;
}

/**
 * What two sets of owned globs have in common, described, or undefined when they cannot meet:
 * a file at the base both match, or a pattern one side names that the other side's glob covers
 * (for files that do not exist yet).
 */
export function overlap(a: readonly string[], b: readonly string[], repoFiles: readonly string[]): string | undefined {
  const matchA = picomatch([...a], { dot: true });
  const matchB = picomatch([...b], { dot: true });
  const file = repoFiles.find((candidate) => matchA(candidate) && matchB(candidate));
  if (file !== undefined) return file;
  for (const pa of a) {
    for (const pb of b) {
      if (pa === pb || picomatch(pa, { dot: true })(pb) || picomatch(pb, { dot: true })(pa)) return pa === pb ? pa : `${pa} / ${pb}`;
    }
  }
  return undefined;
}

/** Subtasks in an order where each comes after everything it depends on (plan order kept otherwise). */
export function topologicalOrder(subtasks: readonly PlanSubtask[]): PlanSubtask[] {
  const done = new Set<string>();
  const out: PlanSubtask[] = [];
  while (out.length < subtasks.length) {
    const next = subtasks.find((task) => !done.has(task.id) && task.depends_on.every((dep) => done.has(dep)));
    if (!next) throw new PlanError('the plan cannot be ordered: it has a dependency cycle');
    done.add(next.id);
    out.push(next);
  }
  return out;
}
