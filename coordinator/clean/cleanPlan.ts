import type { CleanInventory, HeldLease, TaskBranch } from './cleanInventory.js';
import type { RunFacts } from './knownRuns.js';

/** What goes of one run that is over, in the order it is removed. */
export interface RunCleanup {
  worktrees: string[];
  /** The run's folder of worktrees, once they are gone (absent when there is none). */
  worktreesFolder?: string;
  /** Each removed unless a checkout that is not orca's holds it. */
  branches: TaskBranch[];
  sessions?: string;
  leases: HeldLease[];
}

export type RunVerdict = { run: string; why: string } & ({ clean: false } | { clean: true; cleanup: RunCleanup });

/** What `orca clean` is to remove and why, decided before anything is touched. */
export interface CleanPlan {
  /** Every run found, by id. */
  runs: RunVerdict[];
  /** Each repository's folder of views with those no waiting or running job starts from; it goes once empty. */
  views: Array<{ folder: string; remove: string[] }>;
  /** Repositories whose worktree records are pruned afterwards. */
  prune: string[];
}

export interface PlanRules {
  now: number;
  /** A run not known to have ended counts as dead after this long without activity. */
  olderThanMs: number;
  keepBranches: boolean;
}

/**
 * Which runs are over and what each left: a run with a job waiting or running is kept whole. A
 * read-only view is shared by commit: one goes when no waiting or running job starts from it.
 */
export function planClean(found: CleanInventory, rules: PlanRules): CleanPlan {
  const runs = [...found.runs]
    .sort((a, b) => a.id.localeCompare(b.id))
    .map((facts): RunVerdict => {
      const verdict = judgeRun(facts, rules.now, rules.olderThanMs);
      if (!verdict.clean) return { run: facts.id, why: verdict.why, clean: false };
      const cleanup: RunCleanup = {
        worktrees: found.worktrees.get(facts.id)?.dirs ?? [],
        worktreesFolder: found.worktrees.get(facts.id)?.folder,
        branches: rules.keepBranches ? [] : found.branches.filter((branch) => branch.run === facts.id),
        sessions: found.sessions.get(facts.id),
        leases: found.leases.filter((lease) => lease.run === facts.id),
      };
      return { run: facts.id, why: verdict.why, clean: true, cleanup };
    });
  return {
    runs,
    views: found.views.map(({ folder, commits }) => ({
      folder,
      remove: commits.filter((view) => !found.pendingBases.has(view.commit)).map((view) => view.dir),
    })),
    prune: found.repos,
  };
}

function judgeRun(facts: RunFacts, now: number, olderThanMs: number): { clean: boolean; why: string } {
  if (facts.pending > 0) return { clean: false, why: `${facts.pending} job(s) waiting or running` };
  if (facts.ended) return { clean: true, why: `ended (${facts.ended})` };
  if (!facts.coordinated && facts.finished > 0) return { clean: true, why: `all ${facts.finished} job(s) finished` };
  const idle = now - facts.lastActive;
  if (idle >= olderThanMs) return { clean: true, why: `not known to have ended, and nothing happened for ${duration(idle)}` };
  return {
    clean: false,
    why: `not known to have ended; last active ${duration(idle)} ago (counted as dead after --older-than ${duration(olderThanMs)})`,
  };
}

function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1_000));
  if (s < 120) return `${s}s`;
  if (s < 7_200) return `${Math.round(s / 60)}m`;
  if (s < 172_800) return `${Math.round(s / 3_600)}h`;
  return `${Math.round(s / 86_400)}d`;
}
