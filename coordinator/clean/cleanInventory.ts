import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { hasChanges } from '../../shared/core/git/commit.js';
import { gitAt } from '../../shared/core/git/git.js';
import { ORCA_BRANCHES, parseOrcaBranch, parseWipRef, WIP_REFS } from '../../shared/core/git/orcaBranch.js';
import { mergedInto } from '../../shared/core/git/reachability.js';
import type { OrcaHome } from '../../shared/core/runtime/orcaHome.js';
import { type PortLeaser, parsePortLeaseOwner } from '../../shared/infra/ports/portLease.js';
import { type AgentQueue, parseAgentJobId } from '../../shared/infra/queue/agentQueue.js';
import type { Keys } from '../../shared/infra/redis/keys.js';
import { readLedger } from '../runLedger.js';
import { commonDirOf, worktreeRepoOf } from './commonDirOf.js';
import { KnownRuns, type RunFacts } from './knownRuns.js';
import { listDir } from './listDir.js';
import { readRunRecord } from './runRecord.js';

const PENDING_STATES = ['active', 'waiting', 'delayed', 'prioritized', 'waiting-children', 'paused'] as const;

/** What clean reads of a job's payload (a boundary: a job written by another version may lack fields). */
const JobFactsSchema = z.looseObject({
  run_id: z.string(),
  repo: z.looseObject({ path: z.string().optional() }).optional(),
});

/** A branch or ref of orca's in a repository: `orca/<run>/<task>`, or `refs/orca/wip/<run>/<task>`. */
export interface OrcaRef {
  /** The git common dir of the repository it is in. */
  repo: string;
  run: string;
  task: string;
  /** Its full name (`refs/heads/orca/…`, `refs/orca/wip/…`). */
  ref: string;
  /** How a person names it: the branch name, or the full ref. */
  name: string;
  sha: string;
}

export interface ResultBranch extends OrcaRef {
  /** The branches (not orca's) and remote-tracking refs that hold its tip, by short name: it has been merged or pushed. */
  mergedInto: string[];
}

export interface FoundWorktree {
  dir: string;
  run: string;
  task: string;
  /** The git common dir of its repository; undefined for a folder that is no worktree any more. */
  repo?: string;
  /** It holds changes beyond its HEAD (asked of a worktree only). */
  changes: boolean;
}

export interface HeldLease {
  key: string;
  owner: string;
  run: string;
}

/** Who is cleaning: this ORCA_HOME with this Redis prefix. */
export interface Installation {
  home: OrcaHome;
  prefix: string;
}

/** Everything `orca clean` found, and nothing yet decided about it. */
export interface CleanInventory {
  installation: Installation;
  /** Every run named anywhere, in the order first named, with what its record and activity say. */
  runs: RunFacts[];
  /** Git common dirs in scope: the named ones, the cwd's, or with `--all` every one known. */
  repos: string[];
  /** Every repository orca knows of: its records, its jobs, its worktrees and clones, and those named. */
  knownRepos: string[];
  all: boolean;
  /** Each run's folder of worktrees and the worktrees in it, by run (one with no folder is absent). */
  worktrees: Map<string, { folder: string; dirs: FoundWorktree[] }>;
  /** Each run's folder of sessions, by run (one with no folder is absent). */
  sessions: Map<string, string>;
  /** Branches `orca/<run>/<task>` in the repositories in scope; a run's result branch with what holds it. */
  branches: Array<OrcaRef | ResultBranch>;
  /** Work in progress saved under `refs/orca/wip/<run>/<task>` in the repositories in scope. */
  wip: OrcaRef[];
  leases: HeldLease[];
  /** Each run's folder of read-only views (`views/<run>`), by run. */
  views: Map<string, string>;
  /** Each run's folder of pools of ready worktrees (`pool/<run>`), by run. */
  pools: Map<string, string>;
  /** Views in the layout before views belonged to runs (`views/<repoKey>/<commit>`): no run owns them. */
  legacyViews: Array<{ folder: string; dirs: string[] }>;
  /** Records in $ORCA_HOME/runs that cannot be read: said, never counted. */
  unreadableRecords: Array<{ file: string; why: string }>;
}

export interface InventorySources {
  redis: Redis;
  keys: Keys;
  home: OrcaHome;
  queue: AgentQueue;
  leaser: PortLeaser;
  /** Git common dirs of the repositories in scope (`--repo`, or the cwd's); ignored with `all`. */
  scope: string[];
  all: boolean;
  /** A line about something found that cannot be read (it is then not counted). */
  note: (line: string) => void;
}

/**
 * What exists: this installation's records of its runs, the runs named in the queue, orca's
 * folders, the port leases and the run records in Redis, and orca's branches and refs in every
 * repository in scope; each run with its latest activity.
 */
export async function gatherInventory(sources: InventorySources): Promise<CleanInventory> {
  const { redis, keys, home } = sources;
  const runs = new KnownRuns();
  const known = new Set<string>(sources.scope);

  const ledger = readLedger(home);
  for (const entry of ledger.entries.values()) {
    const facts = runs.get(entry.run_id);
    facts.ledger = entry;
    facts.coordinated ||= entry.kind === 'run';
    if (entry.ended) facts.ended = `ended (${entry.ended.status})`;
    runs.touch(entry.run_id, entry.ended?.at ?? entry.created_at);
    const repo = await commonDirOf(entry.repo);
    if (repo) facts.repos.add(repo);
    if (repo && entry.prefix === keys.prefix) known.add(repo);
  }
  await readQueue(sources.queue, runs, known);
  const { worktrees, sessions } = await readOrcaFolders(home, runs, known);
  const leases = (await sources.leaser.held()).map((lease) => ({ ...lease, run: parsePortLeaseOwner(lease.owner).runId }));
  for (const lease of leases) runs.get(lease.run).inRedis = true;
  if ((await redis.type(keys.runs())) === 'zset') for (const id of await redis.zrange(keys.runs(), 0, -1)) runs.get(id).inRedis = true;
  for (const facts of runs.all()) await readRunRecord(redis, keys, facts, runs, sources.note);

  const repos = sources.all ? [...known] : sources.scope;
  const branches: CleanInventory['branches'] = [];
  const wip: OrcaRef[] = [];
  for (const repo of repos) {
    for (const found of await readOrcaRefs(repo, runs)) {
      if (found.ref.startsWith(WIP_REFS)) wip.push(found);
      else branches.push(await withMerges(found, runs.get(found.run)));
    }
  }

  const views = new Map<string, string>();
  const legacyViews: CleanInventory['legacyViews'] = [];
  for (const name of listDir(home.viewsRoot())) {
    const folder = path.join(home.viewsRoot(), name);
    const inside = listDir(folder);
    // `<repoKey>/<commit>` of old: folders named by full commit shas. A run's folder holds repository keys.
    if (inside.length > 0 && inside.every((entry) => /^[0-9a-f]{40}$/.test(entry)))
      legacyViews.push({ folder, dirs: inside.map((commit) => path.join(folder, commit)) });
    else {
      views.set(name, folder);
      runs.touch(name, newestMtime(folder));
    }
  }
  const pools = new Map(listDir(home.poolsRoot()).map((id) => [id, home.runPools(id)] as const));
  for (const [id, folder] of pools) runs.touch(id, newestMtime(folder));
  return {
    installation: { home, prefix: keys.prefix },
    runs: runs.all(),
    repos,
    knownRepos: [...known],
    all: sources.all,
    worktrees,
    sessions,
    branches,
    wip,
    leases,
    views,
    pools,
    legacyViews,
    unreadableRecords: ledger.unreadable,
  };
}

/**
 * The queue: what is waiting or running is untouchable; finished jobs name their repositories.
 */
async function readQueue(queue: AgentQueue, runs: KnownRuns, known: Set<string>): Promise<void> {
  for (const [jobs, pending] of [
    [await queue.queue.getJobs([...PENDING_STATES]), true],
    [await queue.queue.getJobs(['completed', 'failed']), false],
  ] as const) {
    for (const job of jobs) {
      if (!job) continue;
      const facts = JobFactsSchema.safeParse(job.data);
      const id = facts.success ? facts.data.run_id : parseAgentJobId(String(job.id ?? '')).runId;
      if (!id) continue;
      const run = runs.get(id);
      run.inRedis = true;
      if (pending) run.pending += 1;
      else run.finished += 1;
      runs.touch(id, Math.max(job.timestamp ?? 0, job.processedOn ?? 0, job.finishedOn ?? 0));
      const repoPath = facts.success ? facts.data.repo?.path : undefined;
      const dir = repoPath && existsSync(repoPath) ? await commonDirOf(repoPath) : undefined;
      if (dir) {
        known.add(dir);
        run.repos.add(dir);
      }
    }
  }
}

/** orca's own folders of each run, and the repositories they and the clones it keeps belong to. */
async function readOrcaFolders(
  home: OrcaHome,
  runs: KnownRuns,
  known: Set<string>,
): Promise<Pick<CleanInventory, 'worktrees' | 'sessions'>> {
  for (const id of listDir(home.worktreesRoot())) runs.touch(id, newestMtime(home.runWorktrees(id)));
  const sessions = new Map(listDir(home.sessionsRoot()).map((id) => [id, home.runSessions(id)] as const));
  for (const [id, folder] of sessions) runs.touch(id, newestMtime(folder));
  const worktrees = new Map<string, { folder: string; dirs: FoundWorktree[] }>();
  for (const id of listDir(home.worktreesRoot())) {
    const dirs: FoundWorktree[] = [];
    for (const task of listDir(home.runWorktrees(id))) {
      const dir = home.worktree(id, task);
      const repo = await worktreeRepoOf(dir);
      dirs.push({ dir, run: id, task, repo, changes: repo ? await hasChanges(dir) : false });
      if (repo) {
        known.add(repo);
        runs.get(id).repos.add(repo);
      }
    }
    worktrees.set(id, { folder: home.runWorktrees(id), dirs });
  }
  for (const clone of listDir(home.clonesRoot())) {
    const dir = await commonDirOf(home.clone(clone));
    if (dir) known.add(dir);
  }
  return { worktrees, sessions };
}

/** orca's branches and work-in-progress refs in one repository, with when they last moved. */
async function readOrcaRefs(repo: string, runs: KnownRuns): Promise<OrcaRef[]> {
  const out = await gitAt(repo).raw(['for-each-ref', '--format=%(refname) %(objectname) %(committerdate:unix)', ORCA_BRANCHES, WIP_REFS]);
  const found: OrcaRef[] = [];
  for (const line of out.split('\n').filter(Boolean)) {
    const [ref, sha, when] = line.split(' ') as [string, string, string];
    const wip = ref.startsWith(WIP_REFS);
    const named = wip ? parseWipRef(ref) : parseOrcaBranch(ref);
    if (!named) continue; // a name orca never makes (`orca/notes`): not orca's to judge
    found.push({ repo, run: named.runId, task: named.taskId, ref, name: wip ? ref : ref.slice('refs/heads/'.length), sha });
    runs.touch(named.runId, Number(when) * 1_000);
    runs.get(named.runId).repos.add(repo);
  }
  return found;
}

/** A run's result branch, with the branches (not orca's) and remote-tracking refs that hold it. */
async function withMerges(branch: OrcaRef, run: RunFacts): Promise<OrcaRef | ResultBranch> {
  if (run.ledger?.result_branch !== branch.name) return branch;
  return { ...branch, mergedInto: await mergedInto(branch.repo, branch.sha) };
}

/** The newest mtime of a folder and what is directly in it (a transcript grows while its agent runs). */
function newestMtime(dir: string): number {
  let newest = statSync(dir).mtimeMs;
  for (const name of listDir(dir)) {
    try {
      newest = Math.max(newest, statSync(path.join(dir, name)).mtimeMs);
    } catch {
      // Removed between the listing and the stat: it no longer counts.
    }
  }
  return newest;
}
