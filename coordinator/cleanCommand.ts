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
  /** Repositories to look in for task branches, besides those orca knows of. */
  repos: string[];
  keepBranches: boolean;
  dryRun: boolean;
  cwd: string;
}

/**
 * `orca clean`: removes the worktrees, task branches (`orca/<run>/*`), session folders and port
 * leases of finished or dead runs, and read-only views no waiting job needs; prints each thing it
 * removes. A run with a job waiting or running is never touched. The rules are in clean.txt
 * (`orca clean --help`). Redis must answer, and is never started privately here: an empty Redis
 * would make every run look idle. What exists is gathered, then what goes is decided (a plan),
 * then the plan is carried out.
 */
export async function cleanCommand(
  options: CleanOptions,
  print: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Promise<number> {
  const namedRepos = await Promise.all(options.repos.map((repo) => commonDirOf(path.resolve(options.cwd, repo))));
  namedRepos.forEach((dir, i) => {
    if (!dir) throw new UserError(`--repo ${options.repos[i]} is not a git repository.`);
  });
  await pingRedis(redisUrl());
  const redis = connectRedis();
  const keys = new Keys();
  const home = new OrcaHome();
  const queue = new AgentQueue(redis, keys);
  const leaser = new PortLeaser(redis, keys);
  try {
    const found = await gatherInventory({
      redis,
      keys,
      home,
      queue,
      leaser,
      namedRepos: namedRepos as string[],
      cwd: options.cwd,
      note: print,
    });
    const plan = planClean(found, { now: Date.now(), olderThanMs: options.olderThanMs, keepBranches: options.keepBranches });
    await carryOutPlan(plan, { dryRun: options.dryRun, leaser, print });
    return 0;
  } finally {
    await queue.close();
    redis.disconnect();
  }
}
