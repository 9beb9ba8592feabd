import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { gitAt } from '../../shared/core/git/git.js';
import { isSlug } from '../../shared/core/git/slug.js';
import type { OrcaHome } from '../../shared/core/runtime/orcaHome.js';
import { type PortLeaser, parsePortLeaseOwner } from '../../shared/infra/ports/portLease.js';
import { type AgentQueue, parseAgentJobId } from '../../shared/infra/queue/agentQueue.js';
import type { Keys } from '../../shared/infra/redis/keys.js';
import { commonDirOf } from './commonDirOf.js';
import { KnownRuns, type RunFacts } from './knownRuns.js';
import { listDir } from './listDir.js';
import { readRunRecord } from './runRecord.js';

const PENDING_STATES = ['active', 'waiting', 'delayed', 'prioritized', 'waiting-children', 'paused'] as const;

/** What clean reads of a job's payload (a boundary: a job written by another version may lack fields). */
const JobFactsSchema = z.looseObject({
  run_id: z.string(),
  base: z.string().optional(),
  repo: z.looseObject({ path: z.string().optional() }).optional(),
});

export interface TaskBranch {
  /** The git common dir of the repository it is in. */
  repo: string;
  run: string;
  name: string;
  sha: string;
}

export interface HeldLease {
  key: string;
  owner: string;
  run: string;
}

/** Everything `orca clean` found, and nothing yet decided about it. */
export interface CleanInventory {
  /** Every run named anywhere, in the order first named, with what its record and activity say. */
  runs: RunFacts[];
  /** Git common dirs to look in for task branches and to prune: named, the cwd's, jobs' and orca's own. */
  repos: string[];
  /** Commits a waiting or running job starts from: their views are in use. */
  pendingBases: Set<string>;
  /** Each run's folder of worktrees and the worktrees in it, by run (one with no folder is absent). */
  worktrees: Map<string, { folder: string; dirs: string[] }>;
  /** Each run's folder of sessions, by run (one with no folder is absent). */
  sessions: Map<string, string>;
  branches: TaskBranch[];
  leases: HeldLease[];
  /** Read-only views, one entry per repository's folder of them. */
  views: Array<{ folder: string; commits: Array<{ commit: string; dir: string }> }>;
}

export interface InventorySources {
  redis: Redis;
  keys: Keys;
  home: OrcaHome;
  queue: AgentQueue;
  leaser: PortLeaser;
  /** Git common dirs of the repositories named on the command line. */
  namedRepos: string[];
  cwd: string;
  /** A line about something found that cannot be read (it is then not counted). */
  note: (line: string) => void;
}

/**
 * What exists: the runs named in the queue, orca's folders, the port leases and the run records
 * in Redis, and the task branches in every repository known; each run with its latest activity.
 */
export async function gatherInventory(sources: InventorySources): Promise<CleanInventory> {
  const { redis, keys, home } = sources;
  const runs = new KnownRuns();
  const repos = new Set<string>(sources.namedRepos);
  const cwdRepo = await commonDirOf(sources.cwd);
  if (cwdRepo) repos.add(cwdRepo);

  const pendingBases = await readQueue(sources.queue, runs, repos);
  const { worktrees, sessions } = await readOrcaFolders(home, runs, repos);
  const leases = (await sources.leaser.held()).map((lease) => ({ ...lease, run: parsePortLeaseOwner(lease.owner).runId }));
  for (const lease of leases) runs.get(lease.run);
  if ((await redis.type(keys.runs())) === 'zset') for (const id of await redis.zrange(keys.runs(), 0, -1)) runs.get(id);
  const branches = await readTaskBranches(repos, runs);
  for (const facts of runs.all()) await readRunRecord(redis, keys, facts, runs, sources.note);

  const views = listDir(home.viewsRoot()).map((repoKey) => ({
    folder: home.repoViews(repoKey),
    commits: listDir(home.repoViews(repoKey)).map((commit) => ({ commit, dir: home.view(repoKey, commit) })),
  }));
  return { runs: runs.all(), repos: [...repos], pendingBases, worktrees, sessions, branches, leases, views };
}

/**
 * The queue: what is waiting or running is untouchable; finished jobs name their repositories.
 * Returns the commits waiting or running jobs start from.
 */
async function readQueue(queue: AgentQueue, runs: KnownRuns, repos: Set<string>): Promise<Set<string>> {
  const pendingBases = new Set<string>();
  for (const [jobs, pending] of [
    [await queue.queue.getJobs([...PENDING_STATES]), true],
    [await queue.queue.getJobs(['completed', 'failed']), false],
  ] as const) {
    for (const job of jobs) {
      if (!job) continue;
      const facts = JobFactsSchema.safeParse(job.data);
      const id = facts.success ? facts.data.run_id : parseAgentJobId(String(job.id ?? '')).runId;
      if (!id) continue;
      if (pending) {
        runs.get(id).pending += 1;
        if (facts.success && facts.data.base) pendingBases.add(facts.data.base);
      } else runs.get(id).finished += 1;
      runs.touch(id, Math.max(job.timestamp ?? 0, job.processedOn ?? 0, job.finishedOn ?? 0));
      const repoPath = facts.success ? facts.data.repo?.path : undefined;
      const dir = repoPath && existsSync(repoPath) ? await commonDirOf(repoPath) : undefined;
      if (dir) repos.add(dir);
    }
  }
  return pendingBases;
}

/** orca's own folders of each run, and the repositories they and the clones it keeps belong to. */
async function readOrcaFolders(
  home: OrcaHome,
  runs: KnownRuns,
  repos: Set<string>,
): Promise<Pick<CleanInventory, 'worktrees' | 'sessions'>> {
  for (const id of listDir(home.worktreesRoot())) runs.touch(id, newestMtime(home.runWorktrees(id)));
  const sessions = new Map(listDir(home.sessionsRoot()).map((id) => [id, home.runSessions(id)] as const));
  for (const [id, folder] of sessions) runs.touch(id, newestMtime(folder));
  const worktrees = new Map<string, { folder: string; dirs: string[] }>();
  for (const id of listDir(home.worktreesRoot())) {
    const dirs = listDir(home.runWorktrees(id)).map((task) => home.worktree(id, task));
    worktrees.set(id, { folder: home.runWorktrees(id), dirs });
    for (const dir of dirs) {
      const repo = await commonDirOf(dir);
      if (repo) repos.add(repo);
    }
  }
  for (const clone of listDir(home.clonesRoot())) {
    const dir = await commonDirOf(home.clone(clone));
    if (dir) repos.add(dir);
  }
  return { worktrees, sessions };
}

/** Task branches (`orca/<run>/…`) in every repository known, with when they last moved. */
async function readTaskBranches(repos: Set<string>, runs: KnownRuns): Promise<TaskBranch[]> {
  const branches: TaskBranch[] = [];
  for (const repo of repos) {
    const refs = await gitAt(repo).raw([
      'for-each-ref',
      '--format=%(refname:short) %(objectname) %(committerdate:unix)',
      'refs/heads/orca/',
    ]);
    for (const line of refs.split('\n').filter(Boolean)) {
      const [name, sha, when] = line.split(' ') as [string, string, string];
      const id = name.split('/')[1] ?? '';
      if (!isSlug(id)) continue;
      branches.push({ repo, run: id, name, sha });
      runs.touch(id, Number(when) * 1_000);
    }
  }
  return branches;
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
