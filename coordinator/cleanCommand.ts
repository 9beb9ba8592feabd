import path from 'node:path';
import { OrcaHome } from '../shared/core/runtime/orcaHome.js';
import { PortLeaser } from '../shared/infra/ports/portLease.js';
import { AgentQueue } from '../shared/infra/queue/agentQueue.js';
import { Keys } from '../shared/infra/redis/keys.js';
import { connectRedis, pingRedis, redisUrl } from '../shared/infra/redis/redisConnection.js';
import { carryOutPlan } from './clean/cleanActions.js';
import { gatherInventory } from './clean/cleanInventory.js';
import { planClean } from './clean/cleanPlan.js';
import { commonDirOf } from './clean/commonDirOf.js';
import { UserError } from './repoCheck.js';

export interface CleanOptions {
  /** A run not known to have ended counts as dead after this long without activity. */
  olderThanMs: number;
  /** The repositories to clean (default: the one `cwd` is in). */
  repos: string[];
  /** Every repository orca knows, instead. */
  all: boolean;
  keepBranches: boolean;
  /** Remove results not merged yet. */
  results: boolean;
  /** Remove saved work in progress. */
  wip: boolean;
  dryRun: boolean;
  cwd: string;
}

/**
 * `orca clean`: for the runs of one repository (or `--all`) that this installation made and that
 * are over, saves what their worktrees hold beyond their commits, then removes the worktrees, the
 * task branches (`orca/<run>/*`), the session folders and the port leases, and read-only views no
 * waiting job needs; a run's result and saved work stay until merged or asked. Prints each thing
 * it saves, removes or keeps. A run with a job waiting or running is never touched, nor a run of
 * another installation. The rules are in clean.txt (`orca clean --help`). Redis must answer, and
 * is never started privately here: an empty Redis would make every run look idle. What exists is
 * gathered, then what goes is decided (a plan), then the plan is carried out. Exit code 1 when
 * something could not be done.
 */
export async function cleanCommand(
  options: CleanOptions,
  print: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Promise<number> {
  if (options.all && options.repos.length > 0) throw new UserError('give --all or --repo, not both.');
  const scope = await scopeOf(options);
  await pingRedis(redisUrl());
  const redis = connectRedis();
  const keys = new Keys();
  const home = new OrcaHome();
  const queue = new AgentQueue(redis, keys);
  const leaser = new PortLeaser(redis, keys);
  try {
    const found = await gatherInventory({ redis, keys, home, queue, leaser, scope, all: options.all, note: print });
    const plan = planClean(found, {
      now: Date.now(),
      olderThanMs: options.olderThanMs,
      keepBranches: options.keepBranches,
      results: options.results,
      wip: options.wip,
    });
    const failures = await carryOutPlan(plan, { dryRun: options.dryRun, leaser, home, print });
    return failures > 0 ? 1 : 0;
  } finally {
    await queue.close();
    redis.disconnect();
  }
}

/** The repositories named, or the one the command runs in: their git common dirs. */
async function scopeOf(options: CleanOptions): Promise<string[]> {
  if (options.all) return [];
  if (options.repos.length === 0) {
    const here = await commonDirOf(options.cwd);
    if (!here)
      throw new UserError(
        `${options.cwd} is not in a git repository: run orca clean in one, name one with --repo DIR, or pass --all for every repository orca knows.`,
      );
    return [here];
  }
  const named = await Promise.all(options.repos.map((repo) => commonDirOf(path.resolve(options.cwd, repo))));
  named.forEach((dir, i) => {
    if (!dir) throw new UserError(`--repo ${options.repos[i]} is not a git repository.`);
  });
  return [...new Set(named as string[])];
}
