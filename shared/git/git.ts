import { execFile } from 'node:child_process';
import { simpleGit, type SimpleGit } from 'simple-git';

/**
 * A git client for one folder. Identity is fixed so commits made by orca never depend on (or
 * fail for lack of) the user's git config, and prompts are disabled so git never waits on a tty.
 * orca's own commits skip the repository's commit hooks (`--no-verify`).
 */
export function gitAt(dir: string, signal?: AbortSignal): SimpleGit {
  return simpleGit({
    baseDir: dir,
    abort: signal,
    config: ['user.name=orca', 'user.email=orca@localhost', 'commit.gpgsign=false'],
    // The environment is the user's own (EDITOR, GIT_SSH_COMMAND for pushes to a remote, …);
    // simple-git refuses such variables unless told they are trusted.
    unsafe: {
      allowUnsafeEditor: true,
      allowUnsafePager: true,
      allowUnsafeSshCommand: true,
      allowUnsafeAskPass: true,
      allowUnsafeConfigPaths: true,
      allowUnsafeGitProxy: true,
      allowUnsafeTemplateDir: true,
      allowUnsafeDiffExternal: true,
      allowUnsafeConfigEnvCount: true,
    },
  }).env({ ...process.env, GIT_TERMINAL_PROMPT: '0' });
}

/** The commit a ref names, or an error saying the ref is missing in that repository. */
export async function resolveCommit(repo: string, ref: string): Promise<string> {
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

export async function branchExists(repo: string, branch: string): Promise<boolean> {
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
 * Runs git and reports its exit code instead of guessing: simple-git's `raw` resolves on a
 * failing `git merge` that printed its conflict to stdout, so commands whose exit code matters
 * (merges) go through here.
 */
export function runGit(cwd: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      ['-c', 'user.name=orca', '-c', 'user.email=orca@localhost', '-c', 'commit.gpgsign=false', ...args],
      { cwd, env: { ...process.env, GIT_TERMINAL_PROMPT: '0' }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error && typeof (error as { code?: unknown }).code !== 'number') return reject(error);
        resolve({ code: error ? Number((error as { code?: number }).code) : 0, stdout, stderr });
      },
    );
  });
}
