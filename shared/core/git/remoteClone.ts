import { createHash } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import lockfile from 'proper-lockfile';
import { gitAt, resolveCommit } from './git.js';
import { sharedRunRefs } from './orcaBranch.js';
import { withRepoLock } from './repoLock.js';

/** A stable folder name for a remote: readable tail plus a hash of the whole URL. */
export function remoteKey(remote: string): string {
  const tail =
    remote
      .replace(/\.git$/, '')
      .split(/[/:]/)
      .filter(Boolean)
      .pop() ?? 'repo';
  const safe = tail.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 40);
  return `${safe}-${createHash('sha256').update(remote).digest('hex').slice(0, 12)}`;
}

/**
 * A worker's own clone of a remote (bare: it only hosts worktrees), kept under ORCA_HOME per
 * remote and fetched incrementally, only when it lacks `base`: the remote's branches into
 * remote-tracking refs (a task branch may be checked out in one of this clone's worktrees), the
 * run's refs (`refs/orca/<run>/*`) as they are. A job that writes a branch names `taskRef`, the
 * task's ref on the remote: a dead attempt on another host may have pushed it, so the remote is
 * asked (`ls-remote`, which writes nothing) and the ref fetched only when it is there and new.
 * The clone is made under a lock file beside it; fetches take the clone's worktree lock, so
 * they never meet another job's `git worktree add` in the same clone, and many jobs of a run on
 * one host share one clone.
 */
export async function ensureClone(remote: string, dir: string, job: { base: string; runId: string; taskRef?: string }): Promise<string> {
  mkdirSync(path.dirname(dir), { recursive: true });
  const release = await lockfile.lock(path.dirname(dir), {
    lockfilePath: `${dir}.lock`,
    stale: 60_000,
    update: 10_000,
    retries: { retries: 1_200, factor: 1.2, minTimeout: 20, maxTimeout: 500 },
  });
  try {
    if (!existsSync(dir)) await gitAt(path.dirname(dir)).raw(['clone', '--quiet', '--bare', remote, dir]);
  } finally {
    await release();
  }
  if (!(await hasCommit(dir, job.base))) {
    await withRepoLock(dir, async () => {
      if (await hasCommit(dir, job.base)) return; // another job fetched it meanwhile
      const runRefs = sharedRunRefs(job.runId);
      await fetch(dir, ['+refs/heads/*:refs/remotes/origin/*', `+${runRefs}:${runRefs}`]);
      if (!(await hasCommit(dir, job.base))) await fetch(dir, [job.base]);
    });
  }
  if (job.taskRef) await refreshTaskRef(dir, job.taskRef);
  await resolveCommit(dir, job.base);
  return dir;
}

/** The task's ref as the remote has it now, fetched when it differs from the clone's. */
async function refreshTaskRef(dir: string, ref: string): Promise<void> {
  const there = (await gitAt(dir).raw(['ls-remote', 'origin', ref])).split('\t')[0]!.trim();
  if (!there) return;
  const here = (await gitAt(dir).raw(['for-each-ref', '--format=%(objectname)', ref])).trim();
  if (here === there) return;
  await withRepoLock(dir, () => fetch(dir, [`+${ref}:${ref}`]));
}

function fetch(dir: string, refspecs: string[]): Promise<string> {
  // No automatic gc or maintenance: other jobs are working in this clone's worktrees.
  return gitAt(dir).raw(['fetch', '--quiet', '--no-auto-gc', 'origin', ...refspecs]);
}

async function hasCommit(repo: string, sha: string): Promise<boolean> {
  const out = await gitAt(repo)
    .raw(['cat-file', '-t', sha])
    .catch((error: unknown) => {
      // `cat-file -t` fails when the object is missing: that is an answer, not an error.
      if (error instanceof Error && /(could not get object info|Not a valid object name|bad file)/i.test(error.message)) return '';
      throw error;
    });
  return out.trim() === 'commit';
}

/**
 * Pushes a task branch back to the remote the job came from, as the run's ref for the task
 * (`refs/orca/<run>/<task>`: outside the remote's branches). Forced: the ref is the task's alone.
 */
export async function pushBranch(repo: string, branch: string, ref: string): Promise<void> {
  await gitAt(repo).raw(['push', '--quiet', '--force', 'origin', `refs/heads/${branch}:${ref}`]);
}
