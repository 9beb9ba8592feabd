import { mkdirSync } from 'node:fs';
import path from 'node:path';
import lockfile from 'proper-lockfile';
import { gitAt } from './git.js';

const inProcess = new Map<string, Promise<unknown>>();

/**
 * Runs `fn` holding the repository's worktree lock. Concurrent `git worktree add` calls race on
 * `.git/config.lock`, so add, remove and prune are serialised per repository: in this process by
 * a promise chain, across processes by a lock file in the common git dir.
 */
export async function withRepoLock<T>(repo: string, fn: () => Promise<T>): Promise<T> {
  const gitDir = await commonGitDir(repo);
  const previous = inProcess.get(gitDir) ?? Promise.resolve();
  const run = previous.catch(() => undefined).then(async () => {
    const target = path.join(gitDir, 'orca');
    mkdirSync(target, { recursive: true });
    const release = await lockfile.lock(target, {
      lockfilePath: path.join(gitDir, 'orca-worktree.lock'),
      stale: 30_000,
      update: 5_000,
      retries: { retries: 600, factor: 1.2, minTimeout: 10, maxTimeout: 250 },
    });
    try {
      return await fn();
    } finally {
      await release();
    }
  });
  inProcess.set(gitDir, run);
  try {
    return await run;
  } finally {
    if (inProcess.get(gitDir) === run) inProcess.delete(gitDir);
  }
}

export async function commonGitDir(repo: string): Promise<string> {
  const dir = (await gitAt(repo).raw(['rev-parse', '--git-common-dir'])).trim();
  return path.resolve(repo, dir);
}
