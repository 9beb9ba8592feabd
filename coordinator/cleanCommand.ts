import { existsSync, readdirSync, realpathSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { RunStreamEntrySchema } from '../shared/core/events/runStreamEntry.js';
import { gitAt } from '../shared/core/git/git.js';
import { isSlug } from '../shared/core/git/slug.js';
import { listWorktrees, pruneWorktrees, removeWorktree } from '../shared/core/git/worktree.js';
import { AgentQueue } from '../shared/infra/queue/agentQueue.js';
import { Keys } from '../shared/infra/redis/keys.js';
import { connectRedis, pingRedis, redisUrl } from '../shared/infra/redis/redisConnection.js';
import { OrcaHome } from '../shared/core/runtime/orcaHome.js';
import { PortLeaser } from '../shared/infra/ports/portLease.js';
import { UserError } from './repoCheck.js';

export interface CleanOptions {
  /** A run not known to have ended counts as dead after this long without activity. */
  olderThanMs: number;
  /** Repositories to look in for task branches, besides those orca knows of. */
  repos: string[];
  keepBranches: boolean;
  dryRun: boolean;
  cwd: string;
}

const PENDING_STATES = ['active', 'waiting', 'delayed', 'prioritized', 'waiting-children', 'paused'] as const;

/** What clean reads of a job's payload (a boundary: a job written by another version may lack fields). */
const JobFactsSchema = z.looseObject({
  run_id: z.string(),
  base: z.string().optional(),
  repo: z.looseObject({ path: z.string().optional() }).optional(),
});

/** What clean reads of the board's run hash, when there is one (every field a string). */
const RunHashSchema = z.looseObject({
  kind: z.string().optional(),
  status: z.string().optional(),
  ended_at: z.string().optional(),
  updated_at: z.coerce.number().optional(),
});

interface RunFacts {
  id: string;
  pending: number;
  finished: number;
  /** A coordinator run (`orca run`): between its jobs it may be merging or verifying. */
  coordinated: boolean;
  ended?: string;
  lastActive: number;
}

/**
 * `orca clean`: removes the worktrees, task branches (`orca/<run>/*`), session folders and port
 * leases of finished or dead runs, and read-only views no waiting job needs; prints each thing it
 * removes. A run with a job waiting or running is never touched. The rules are in clean.txt
 * (`orca clean --help`). Redis must answer, and is never started privately here: an empty Redis
 * would make every run look idle.
 */
export async function cleanCommand(options: CleanOptions, print: (line: string) => void = (line) => process.stdout.write(`${line}\n`)): Promise<number> {
  const explicitRepos = await Promise.all(options.repos.map((repo) => commonDirOf(path.resolve(options.cwd, repo))));
  explicitRepos.forEach((dir, i) => {
    if (!dir) throw new UserError(`--repo ${options.repos[i]} is not a git repository.`);
  });
  await pingRedis(redisUrl());
  const redis = connectRedis();
  const keys = new Keys();
  const home = new OrcaHome();
  const queue = new AgentQueue(redis, keys);
  const leaser = new PortLeaser(redis, keys);
  const act = options.dryRun ? 'would remove' : 'removed';
  try {
    const repos = new Set<string>(explicitRepos as string[]);
    const cwdRepo = await commonDirOf(options.cwd);
    if (cwdRepo) repos.add(cwdRepo);
    const runs = new Map<string, RunFacts>();
    const run = (id: string): RunFacts => {
      let facts = runs.get(id);
      if (!facts) runs.set(id, (facts = { id, pending: 0, finished: 0, coordinated: false, lastActive: stampOf(id) }));
      return facts;
    };
    const touch = (id: string, at: number | undefined) => {
      if (at && at > run(id).lastActive) run(id).lastActive = at;
    };

    // The queue: what is waiting or running is untouchable; finished jobs name their repositories.
    const pendingBases = new Set<string>();
    for (const [jobs, pending] of [[await queue.queue.getJobs([...PENDING_STATES]), true], [await queue.queue.getJobs(['completed', 'failed']), false]] as const) {
      for (const job of jobs) {
        if (!job) continue;
        const facts = JobFactsSchema.safeParse(job.data);
        const id = facts.success ? facts.data.run_id : String(job.id ?? '').split('|')[0]!;
        if (!id) continue;
        if (pending) {
          run(id).pending += 1;
          if (facts.success && facts.data.base) pendingBases.add(facts.data.base);
        } else run(id).finished += 1;
        touch(id, Math.max(job.timestamp ?? 0, job.processedOn ?? 0, job.finishedOn ?? 0));
        const repoPath = facts.success ? facts.data.repo?.path : undefined;
        const dir = repoPath && existsSync(repoPath) ? await commonDirOf(repoPath) : undefined;
        if (dir) repos.add(dir);
      }
    }

    // orca's own folders, the clones it keeps, the leases and run records in Redis.
    const worktreesRoot = path.join(home.root, 'worktrees');
    const sessionsRoot = path.join(home.root, 'sessions');
    for (const root of [worktreesRoot, sessionsRoot]) {
      for (const id of listDir(root)) touch(id, newestMtime(path.join(root, id)));
    }
    for (const id of listDir(worktreesRoot)) {
      for (const task of listDir(path.join(worktreesRoot, id))) {
        const dir = await commonDirOf(path.join(worktreesRoot, id, task));
        if (dir) repos.add(dir);
      }
    }
    for (const clone of listDir(path.join(home.root, 'repos'))) {
      const dir = await commonDirOf(path.join(home.root, 'repos', clone));
      if (dir) repos.add(dir);
    }
    const leases = await leaser.held();
    for (const lease of leases) run(lease.owner.split('|')[0]!);
    if ((await redis.type(keys.runs())) === 'zset') for (const id of await redis.zrange(keys.runs(), 0, -1)) run(id);

    // Task branches in every repository known, with when they last moved.
    const branches: Array<{ repo: string; run: string; name: string; sha: string }> = [];
    for (const repo of repos) {
      const refs = await gitAt(repo).raw(['for-each-ref', '--format=%(refname:short) %(objectname) %(committerdate:unix)', 'refs/heads/orca/']);
      for (const line of refs.split('\n').filter(Boolean)) {
        const [name, sha, when] = line.split(' ') as [string, string, string];
        const id = name.split('/')[1] ?? '';
        if (!isSlug(id)) continue;
        branches.push({ repo, run: id, name, sha });
        touch(id, Number(when) * 1_000);
      }
    }

    for (const facts of runs.values()) await readRunRecord(redis, keys, facts, touch, print);

    // Decide, then act on the runs that are over.
    const now = Date.now();
    let cleaned = 0;
    let kept = 0;
    for (const facts of [...runs.values()].sort((a, b) => a.id.localeCompare(b.id))) {
      const decision = decide(facts, now, options.olderThanMs);
      if (!decision.clean) {
        kept += 1;
        print(`kept run ${facts.id}: ${decision.why}`);
        continue;
      }
      cleaned += 1;
      print(`run ${facts.id}: ${decision.why}`);
      for (const task of listDir(path.join(worktreesRoot, facts.id))) {
        const dir = path.join(worktreesRoot, facts.id, task);
        const repo = await commonDirOf(dir);
        if (!options.dryRun) {
          if (repo) await removeWorktree(repo, dir);
          else rmSync(dir, { recursive: true, force: true }); // its repository is gone: a plain folder now
        }
        print(`  ${act} worktree ${dir}`);
      }
      if (!options.dryRun) rmSync(path.join(worktreesRoot, facts.id), { recursive: true, force: true });
      if (!options.keepBranches) {
        for (const branch of branches.filter((b) => b.run === facts.id)) {
          const holder = (await listWorktrees(branch.repo)).find((w) => w.branch === branch.name && existsSync(w.dir));
          if (holder && !options.dryRun) {
            print(`  kept branch ${branch.name} in ${repoName(branch.repo)}: checked out at ${holder.dir}, which is not orca's`);
            continue;
          }
          if (!options.dryRun) await gitAt(branch.repo).raw(['branch', '--quiet', '-D', branch.name]);
          print(`  ${act} branch ${branch.name} in ${repoName(branch.repo)} (was ${branch.sha}; \`git branch ${branch.name} ${branch.sha}\` restores it)`);
        }
      }
      const sessions = path.join(sessionsRoot, facts.id);
      if (existsSync(sessions)) {
        if (!options.dryRun) rmSync(sessions, { recursive: true, force: true });
        print(`  ${act} sessions ${sessions}`);
      }
      for (const lease of leases.filter((l) => l.owner.split('|')[0] === facts.id)) {
        if (!options.dryRun) await leaser.drop(lease);
        print(`  ${act} port lease ${lease.key} (${lease.owner})`);
      }
    }

    // Read-only views are shared by commit: one goes when no waiting or running job starts from it.
    const viewsRoot = path.join(home.root, 'views');
    for (const repoKey of listDir(viewsRoot)) {
      for (const commit of listDir(path.join(viewsRoot, repoKey))) {
        if (pendingBases.has(commit)) continue;
        const dir = path.join(viewsRoot, repoKey, commit);
        const repo = await commonDirOf(dir);
        if (!options.dryRun) {
          if (repo) await removeWorktree(repo, dir);
          else rmSync(dir, { recursive: true, force: true });
        }
        print(`${act} view ${dir}`);
      }
      if (!options.dryRun && listDir(path.join(viewsRoot, repoKey)).length === 0) rmSync(path.join(viewsRoot, repoKey), { recursive: true, force: true });
    }
    if (!options.dryRun) for (const repo of repos) await pruneWorktrees(repo);
    print(`orca clean: ${cleaned} run(s) ${options.dryRun ? 'to clean' : 'cleaned'}, ${kept} kept${options.dryRun ? ' (dry run: nothing removed)' : ''}`);
    return 0;
  } finally {
    await queue.close();
    redis.disconnect();
  }
}

function decide(facts: RunFacts, now: number, olderThanMs: number): { clean: boolean; why: string } {
  if (facts.pending > 0) return { clean: false, why: `${facts.pending} job(s) waiting or running` };
  if (facts.ended) return { clean: true, why: `ended (${facts.ended})` };
  if (!facts.coordinated && facts.finished > 0) return { clean: true, why: `all ${facts.finished} job(s) finished` };
  const idle = now - facts.lastActive;
  if (idle >= olderThanMs) return { clean: true, why: `not known to have ended, and nothing happened for ${duration(idle)}` };
  return { clean: false, why: `not known to have ended; last active ${duration(idle)} ago (counted as dead after --older-than ${duration(olderThanMs)})` };
}

/**
 * What the run's record says: its event stream (`run_created` makes it a coordinator run,
 * `run_end` ends it) and the board's hash of it, if there is one.
 */
async function readRunRecord(
  redis: Redis,
  keys: Keys,
  facts: RunFacts,
  touch: (id: string, at: number | undefined) => void,
  print: (line: string) => void,
): Promise<void> {
  const entries = [
    ...(await redis.xrange(keys.events(facts.id), '-', '+', 'COUNT', 20)),
    ...(await redis.xrevrange(keys.events(facts.id), '+', '-', 'COUNT', 200)),
  ];
  for (const [id, fields] of entries) {
    touch(facts.id, Number(id.split('-')[0]));
    const raw = fields[fields.indexOf('e') + 1];
    const parsed = RunStreamEntrySchema.safeParse(raw === undefined ? undefined : safeJson(raw));
    if (!parsed.success) {
      // Unreadable, it cannot say the run ended: the run is judged without it (kept, unless old).
      print(`note: run ${facts.id} event ${id} is malformed; it is not counted as the run's end`);
      continue;
    }
    if (parsed.data.source !== 'run') continue; // agents' events say nothing about the run's end
    if (parsed.data.event.type === 'run_created') facts.coordinated = true;
    if (parsed.data.event.type === 'run_end') facts.ended = `run_end ${String(parsed.data.event.status ?? '')}`.trim();
  }
  if ((await redis.type(keys.run(facts.id))) !== 'hash') return;
  const hash = RunHashSchema.safeParse(await redis.hgetall(keys.run(facts.id)));
  if (!hash.success) {
    print(`note: the record of run ${facts.id} is malformed (${hash.error.issues[0]?.message ?? 'unreadable'}); it is not counted as the run's end`);
    return;
  }
  if (hash.data.kind === 'run') facts.coordinated = true;
  if (hash.data.ended_at || (hash.data.status && hash.data.status !== 'running')) facts.ended ??= `its record says ${hash.data.status ?? 'ended'}`;
  touch(facts.id, hash.data.updated_at);
}

/** The git common dir of the repository `dir` is in (its `.git`, or a bare repository), if any. */
async function commonDirOf(dir: string): Promise<string | undefined> {
  if (!existsSync(dir)) return undefined;
  try {
    return realpathSync(path.resolve(dir, (await gitAt(dir).raw(['rev-parse', '--git-common-dir'])).trim()));
  } catch {
    return undefined;
  }
}

function repoName(commonDir: string): string {
  return path.basename(commonDir) === '.git' ? path.dirname(commonDir) : commonDir;
}

/** When a run id made by `newRunId` (`rYYYYMMDD-HHMMSS-xxxx`) says it started; 0 for other ids. */
function stampOf(runId: string): number {
  const match = /^r(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})-/.exec(runId);
  if (!match) return 0;
  const [, y, mo, d, h, mi, s] = match.map(Number) as number[];
  return Date.UTC(y!, mo! - 1, d!, h!, mi!, s!);
}

function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
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

function safeJson(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}

function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1_000));
  if (s < 120) return `${s}s`;
  if (s < 7_200) return `${Math.round(s / 60)}m`;
  if (s < 172_800) return `${Math.round(s / 3_600)}h`;
  return `${Math.round(s / 86_400)}d`;
}
