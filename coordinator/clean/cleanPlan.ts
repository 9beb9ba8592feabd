import { wipRef } from '../../shared/core/git/orcaBranch.js';
import { isSlug } from '../../shared/core/git/slug.js';
import type { CleanInventory, HeldLease, OrcaRef, ResultBranch } from './cleanInventory.js';
import type { RunFacts } from './knownRuns.js';

export interface WorktreeRemoval {
  dir: string;
  /** Its repository; undefined for a folder that is no worktree any more, deleted as a folder. */
  repo?: string;
  /** Where its uncommitted changes are saved before it goes. */
  saveTo?: string;
}

/** What goes of one run that is over, in the order it is removed, and what of it is kept and why. */
export interface RunCleanup {
  /** Its worktrees under this ORCA_HOME, each saved first when it holds changes. */
  worktrees: WorktreeRemoval[];
  /** The run's folder of worktrees, once they are gone (absent when there is none). */
  worktreesFolder?: string;
  /** Each removed unless a checkout that is not orca's holds it. */
  branches: Array<{ ref: OrcaRef; why: string }>;
  /** Saved work in progress removed (`--wip`). */
  wip: OrcaRef[];
  /** Refs kept, each said with how to use it and what would remove it. */
  kept: Array<{ ref: OrcaRef; why: string }>;
  sessions?: string;
  /** The run's folder of read-only views (`views/<run>`): they belong to the run and go with it. */
  views?: string;
  /** The run's folder of pools of ready worktrees (`pool/<run>`): they go with the run too. */
  pools?: string;
  leases: HeldLease[];
  /** This installation's record of the run: it goes once nothing of the run is left in its repositories. */
  record?: { runId: string; repos: string[] };
  /** A run shared over git (`--share`): its refs on that remote (`refs/orca/<run>/…`) go too. */
  shared?: { runId: string; url: string; repo: string };
}

export type RunVerdict = { run: string; why: string } & (
  | { action: 'keep' } // alive: kept whole
  | { action: 'leave' } // another installation's: never touched
  | { action: 'clean'; cleanup: RunCleanup }
);

/** What `orca clean` is to remove and why, decided before anything is touched. */
export interface CleanPlan {
  all: boolean;
  /** The repositories in scope (git common dirs). */
  repos: string[];
  /** Every run in scope, by id. */
  runs: RunVerdict[];
  /** Runs only of repositories out of scope: not looked at. */
  outOfScope: number;
  /** Views of the layout before views belonged to runs (`views/<repoKey>/<commit>`): every one goes, then its folder. */
  views: Array<{ folder: string; remove: string[] }>;
  /** Repositories whose worktree records are pruned afterwards. */
  prune: string[];
  /** Every ref the plan removes, by repository: what "reachable from nothing else" is judged against. */
  leaving: Map<string, string[]>;
  /** Lines about what was found and could not be read. */
  notes: string[];
}

export interface PlanRules {
  now: number;
  /** A run not known to have ended counts as dead after this long without activity. */
  olderThanMs: number;
  keepBranches: boolean;
  /** Remove results (integration branches, `orca agent` branches) not merged yet. */
  results: boolean;
  /** Remove saved work in progress (refs/orca/wip/…). */
  wip: boolean;
}

/**
 * Which runs are over, whose they are, and what each left. A run with a job waiting or running is
 * kept whole. Only this installation's runs (recorded in its ORCA_HOME under its ORCA_PREFIX) lose
 * branches and refs; a run with no record here that left folders under this ORCA_HOME (another
 * ORCA_HOME's run whose jobs this one's workers ran, or leftovers Redis no longer knows) loses only
 * those; any other run is never touched. A run's result is kept until
 * it is merged into another branch (or pushed), or `--results`; saved work in progress is kept
 * until `--wip`. A run's read-only views go with the run (its coordinator removes them when it
 * ends; these are a dead run's).
 */
export function planClean(found: CleanInventory, rules: PlanRules): CleanPlan {
  const scope = new Set(found.repos);
  const inScope = (facts: RunFacts) => found.all || [...facts.repos].some((repo) => scope.has(repo));
  const runs: RunVerdict[] = [];
  let outOfScope = 0;
  for (const facts of [...found.runs].sort((a, b) => a.id.localeCompare(b.id))) {
    // Known only to Redis's history (its events, its finished jobs): nothing of it is left to judge.
    if (!facts.ledger && facts.pending === 0 && !leftSomething(facts.id, found)) continue;
    if (!inScope(facts)) {
      outOfScope += 1;
      continue;
    }
    runs.push(verdictOf(facts, found, rules));
  }
  const leaving = new Map<string, string[]>();
  for (const verdict of runs) {
    if (verdict.action !== 'clean') continue;
    for (const ref of [...verdict.cleanup.branches.map((removal) => removal.ref), ...verdict.cleanup.wip]) {
      leaving.set(ref.repo, [...(leaving.get(ref.repo) ?? []), ref.ref]);
    }
  }
  return {
    all: found.all,
    repos: found.repos,
    runs,
    outOfScope,
    views: found.legacyViews.map(({ folder, dirs }) => ({ folder, remove: dirs })),
    prune: found.repos,
    leaving,
    notes: found.unreadableRecords.map(({ file, why }) => `note: ${file} is not a run record orca can read (${why}); it is left alone`),
  };
}

function verdictOf(facts: RunFacts, found: CleanInventory, rules: PlanRules): RunVerdict {
  const run = facts.id;
  const mine = facts.ledger?.prefix === found.installation.prefix;
  const notOurs = whyNotThisInstallations(facts, found, mine);
  if (notOurs !== undefined) return { run, action: 'leave', why: notOurs };
  const alive = judgeRun(facts, rules.now, rules.olderThanMs);
  if (!alive.over) return { run, action: 'keep', why: alive.why };
  const cleanup = foldersOf(run, found);
  if (!mine) {
    // Its jobs ran here (or Redis no longer knows it), its branches are whoever made it's: only this ORCA_HOME's folders go.
    const whose = facts.inRedis ? 'made by another ORCA_HOME' : 'no record of it here, and unknown to this Redis';
    return { run, action: 'clean', why: `${alive.why}; ${whose}, so only what it left under this ORCA_HOME goes`, cleanup };
  }
  cleanup.record = { runId: run, repos: [...facts.repos] };
  if (facts.ledger?.share && !rules.keepBranches) cleanup.shared = { runId: run, url: facts.ledger.share, repo: facts.ledger.repo };
  planBranches(cleanup, facts, found, rules);
  planWip(cleanup, run, found, rules);
  return { run, action: 'clean', why: alive.why, cleanup };
}

/** Why a run is another installation's and never touched; undefined when it is this one's, or left folders here. */
function whyNotThisInstallations(facts: RunFacts, found: CleanInventory, mine: boolean): string | undefined {
  const { installation } = found;
  if (facts.ledger && !mine)
    return `made with ORCA_PREFIX=${facts.ledger.prefix} (this is ${installation.prefix}): not this installation's`;
  if (!mine && !leftFoldersHere(facts.id, found))
    return `not this installation's: no record of it in ${installation.home.runsRoot()} (another ORCA_HOME's or ORCA_PREFIX's run, or one from before orca kept records)`;
  return undefined;
}

/** What a run that is over left under this ORCA_HOME: its worktrees (each saved first when it holds changes), folders and leases. */
function foldersOf(run: string, found: CleanInventory): RunCleanup {
  const worktrees = (found.worktrees.get(run)?.dirs ?? []).map(
    (worktree): WorktreeRemoval => ({
      dir: worktree.dir,
      repo: worktree.repo,
      // `_integration` (`.integration` before) holds merges (commits) and what the checks left: nothing to save.
      saveTo:
        worktree.repo && worktree.changes && isSlug(worktree.task) && !/^[._]/.test(worktree.task) ? wipRef(run, worktree.task) : undefined,
    }),
  );
  return {
    worktrees,
    worktreesFolder: found.worktrees.get(run)?.folder,
    branches: [],
    wip: [],
    kept: [],
    sessions: found.sessions.get(run),
    views: found.views.get(run),
    pools: found.pools.get(run),
    leases: found.leases.filter((lease) => lease.run === run),
  };
}

/** The run's branches: a task branch goes, its result only once merged, unchanged or `--results`; none with `--keep-branches`. */
function planBranches(cleanup: RunCleanup, facts: RunFacts, found: CleanInventory, rules: PlanRules): void {
  if (rules.keepBranches) return;
  for (const branch of found.branches.filter((ref) => ref.run === facts.id)) {
    const result = 'mergedInto' in branch ? (branch as ResultBranch) : undefined;
    if (!result) cleanup.branches.push({ ref: branch, why: 'a task branch' });
    else if (branch.sha === facts.ledger?.base)
      cleanup.branches.push({ ref: branch, why: 'the result, with no changes (still at the base)' });
    else if (result.mergedInto.length > 0)
      cleanup.branches.push({ ref: branch, why: `the result, merged into ${result.mergedInto.join(', ')}` });
    else if (rules.results) cleanup.branches.push({ ref: branch, why: 'the result, not merged: --results' });
    else
      cleanup.kept.push({
        ref: branch,
        why: `the run's result, not merged into any branch yet: \`git merge ${branch.name}\` takes it (orca clean --results removes it)`,
      });
  }
}

/** The run's saved work in progress: removed with `--wip`, else kept and said how to get it back. */
function planWip(cleanup: RunCleanup, run: string, found: CleanInventory, rules: PlanRules): void {
  for (const saved of found.wip.filter((ref) => ref.run === run)) {
    if (rules.wip) cleanup.wip.push(saved);
    else
      cleanup.kept.push({
        ref: saved,
        why: `uncommitted work saved from a worktree: \`git checkout ${saved.ref}\` (or \`git switch -c NAME ${saved.ref}\`) gets it back (orca clean --wip removes it)`,
      });
  }
}

function leftFoldersHere(run: string, found: CleanInventory): boolean {
  return (
    found.worktrees.has(run) ||
    found.sessions.has(run) ||
    found.views.has(run) ||
    found.pools.has(run) ||
    found.leases.some((lease) => lease.run === run)
  );
}

function leftSomething(run: string, found: CleanInventory): boolean {
  return leftFoldersHere(run, found) || found.branches.some((ref) => ref.run === run) || found.wip.some((ref) => ref.run === run);
}

function judgeRun(facts: RunFacts, now: number, olderThanMs: number): { over: boolean; why: string } {
  if (facts.pending > 0) return { over: false, why: `${facts.pending} job(s) waiting or running` };
  if (facts.ended) return { over: true, why: facts.ended };
  if (!facts.coordinated && facts.finished > 0) return { over: true, why: `all ${facts.finished} job(s) finished` };
  const idle = now - facts.lastActive;
  if (idle >= olderThanMs) return { over: true, why: `not known to have ended, and nothing happened for ${duration(idle)}` };
  return {
    over: false,
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
