import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
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
  const run = previous
    .catch(() => undefined)
    .then(async () => {
      const target = path.join(gitDir, 'orca');
      mkdirSync(target, { recursive: true });
      const release = await lockPolling(target, path.join(gitDir, 'orca-worktree.lock'));
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

/** How long a process waits for another's hold on the lock before it gives up (a stale lock is taken over after 30 s). */
const LOCK_WAIT_MS = 30_000;
const LOCK_POLL_MS = 5;

/**
 * The cross-process lock, polled every 5 ms: a job waiting here is a job not yet started, a poll
 * is one mkdir, and a backoff would leave the lock idle between holders (8 jobs start at once in
 * a wave). Polled here rather than by proper-lockfile's `retries`: its retry module builds the
 * whole list of waits up front, 6,000 timeouts for 30 s at 5 ms, on every lock taken (1 % of a
 * worker's busy time in the efficiency benchmark's profile).
 */
async function lockPolling(target: string, lockfilePath: string): Promise<() => Promise<void>> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      return await lockfile.lock(target, { lockfilePath, stale: 30_000, update: 5_000, retries: 0 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw error;
      if (Date.now() >= deadline)
        throw new Error(
          `${lockfilePath} was held by another live orca process for ${LOCK_WAIT_MS / 1000} s (it adds or removes this repository's worktrees): try again once it is done`,
        );
    }
    await sleep(LOCK_POLL_MS);
  }
}

const commonDirs = new Map<string, Promise<string>>();

/**
 * The git folder a repository's worktrees share. Asked of git once per folder and process: it is
 * on the path of every worktree added or removed, and a repository does not move its git folder.
 */
export function commonGitDir(repo: string): Promise<string> {
  const key = path.resolve(repo);
  let found = commonDirs.get(key);
  if (!found) {
    found = gitAt(key)
      .raw(['rev-parse', '--git-common-dir'])
      .then((dir) => path.resolve(key, dir.trim()));
    // A failure (no repository there yet) is not remembered: the next call asks again.
    found.catch(() => commonDirs.delete(key));
    commonDirs.set(key, found);
  }
  return found;
}
