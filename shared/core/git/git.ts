import { existsSync } from 'node:fs';
import path from 'node:path';
import { type Launched, type LaunchOptions, launch } from '../runtime/launcher.js';
import { ByCommit } from './byCommit.js';
import { gitInvocation, talksToRemote } from './gitSafety.js';
import { RefFiles } from './refFiles.js';

/** What orca asks of git in a folder: `raw(args)` runs `git ARGS` there and resolves with stdout. */
export interface GitClient {
  raw(args: string[]): Promise<string>;
}

/** Identity fixed, so commits made by orca never depend on (or fail for lack of) the user's git config. */
export const ORCA_GIT_CONFIG = ['-c', 'user.name=orca', '-c', 'user.email=orca@localhost', '-c', 'commit.gpgsign=false'];
/** Output is read whole (a diff, `ls-tree -r` of a large repository); only memory bounds it. */
const MAX_OUTPUT = 512 * 1024 * 1024;

/**
 * A git client for one folder. Prompts are disabled so git never waits on a tty; nothing an agent
 * could have written makes git run a program (gitSafety.ts: no system or user configuration but
 * the keys that run nothing, no hooks, filters, fsmonitor or external diffs, no secrets in git's
 * environment); the environment is otherwise the user's own (GIT_SSH_COMMAND for pushes to a
 * remote, …).
 *
 * `raw` rejects with git's stderr when git exits non-zero and says why on stderr; a command that
 * fails silently (`rev-parse --verify --quiet` of a missing ref) resolves with its output, for
 * the caller to judge: simple-git's contract for `raw`, kept. `env` adds to the environment
 * (GIT_INDEX_FILE for a commit made beside the worktree's own index). orca runs git itself because
 * simple-git waits 50 ms after every command that prints nothing, and a job runs several of
 * those (worktree add and remove, branch checks, add, commit) on the way to and from its agent.
 */
export function gitAt(dir: string, signal?: AbortSignal, env: NodeJS.ProcessEnv = {}): GitClient {
  return {
    raw: (args) =>
      new Promise((resolve, reject) => {
        // Spawning in a missing folder fails as "spawn git ENOENT", as if git were missing.
        if (!existsSync(dir)) return reject(new Error(`cannot run git in ${dir}: the folder does not exist`));
        launchGit(dir, [...ORCA_GIT_CONFIG, ...args], { env, maxBuffer: MAX_OUTPUT, signal }).then((ran) => {
          if (ran.code === null) return reject(new Error(`git ${args[0]} in ${dir} was killed (${ran.signal})`));
          if (ran.code !== 0 && ran.stderr.length > 0) return reject(new Error(ran.stderr.toString('utf8')));
          resolve(ran.stdout.toString('utf8'));
        }, reject);
      }),
  };
}

/**
 * The commit `ref` names in `repo`, or an error saying it names none. A full commit id found once
 * is not asked again in this process (a commit's id never changes what it names, and every job of
 * a run checks the run's base); a name that may move (a branch, a tag, HEAD) is asked every time.
 */
export function resolveCommit(repo: string, ref: string): Promise<string> {
  return knownCommits.get(ref, () => askCommit(repo, ref), path.resolve(repo));
}

const knownCommits = new ByCommit<string>(32);

async function askCommit(repo: string, ref: string): Promise<string> {
  let sha: string;
  try {
    sha = (await gitAt(repo).raw(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`])).trim();
  } catch (error) {
    // --quiet makes a missing ref fail with no message; anything else is a real git failure.
    const detail = error instanceof Error ? error.message.trim() : String(error);
    if (detail) throw new Error(`cannot resolve ${ref} in ${repo}: ${detail}`);
    sha = '';
  }
  if (!sha) throw new Error(`${ref} is not a commit in ${repo}: pass an existing branch, tag or sha.`);
  return sha;
}

/** Whether `branch` is in `repo`: read from the ref files where the repository keeps its refs in files (refFiles.ts), else asked of git. */
export async function branchExists(repo: string, branch: string): Promise<boolean> {
  const files = RefFiles.open(repo);
  if (files) return files.resolve(`refs/heads/${branch}`) !== undefined;
  const out = await gitAt(repo).raw(['branch', '--list', branch]);
  return out.trim().length > 0;
}

/** How many commits `branch` has that `base` does not. */
export async function commitsAhead(repo: string, base: string, branch: string): Promise<number> {
  return Number((await gitAt(repo).raw(['rev-list', '--count', `${base}..${branch}`])).trim());
}

export async function deleteBranch(repo: string, branch: string): Promise<void> {
  await gitAt(repo).raw(['branch', '--quiet', '-D', branch]);
}

/**
 * Runs git and reports its exit code instead of guessing: `raw` resolves on a failing
 * `git merge` that printed its conflict only to stdout, so commands whose exit code matters
 * (merges) go through here.
 */
export async function runGit(
  cwd: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const ran = await launchGit(cwd, [...ORCA_GIT_CONFIG, ...args], { env, maxBuffer: 64 * 1024 * 1024 });
  if (ran.code === null) throw new Error(`git ${args[0]} in ${cwd} was killed (${ran.signal})`);
  return { code: ran.code, stdout: ran.stdout.toString('utf8'), stderr: ran.stderr.toString('utf8') };
}

/**
 * One git process of orca's: its arguments and environment made safe (gitSafety.ts), started by
 * the launcher (launcher.ts), so that a call that talks to a remote is one Ctrl-C ends
 * (talksToRemote). `env` adds to this process's environment. Every git call of orca's starts here
 * but the pool's checkouts and readCheckedOutFile, which run the repository's filters on purpose.
 */
export function launchGit(
  cwd: string,
  args: readonly string[],
  { env = {}, ...options }: Omit<LaunchOptions, 'cwd' | 'env' | 'interruptible'> & { env?: NodeJS.ProcessEnv } = {},
): Promise<Launched> {
  const safe = gitInvocation(cwd, args, { ...process.env, ...env });
  return launch('git', safe.args, { ...options, cwd, env: safe.env, interruptible: talksToRemote(args) });
}

/** Why a git process failed, as it said it: its stderr, else its exit code or signal. */
export function whyGitFailed(ran: Launched): string {
  return ran.stderr.toString('utf8').trim() || `exit ${ran.code ?? ran.signal}`;
}
