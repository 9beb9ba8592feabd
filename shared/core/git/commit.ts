import { gitAt, runGit } from './git.js';
import { linkedDependencies } from './linkDependencies.js';

/**
 * Commits everything in a worktree (tracked changes, new files; ignored files stay out) on its
 * current branch. Returns the new commit, or undefined when there was nothing to commit.
 */
export async function commitAll(dir: string, message: string, options: { exclude?: string[] } = {}): Promise<string | undefined> {
  const git = gitAt(dir);
  // `exclude`: paths orca itself put in the worktree (a linked node_modules): a symlink is not a
  // directory to git, so a `node_modules/` ignore rule would not keep it out.
  const excluded = (options.exclude ?? []).map((p) => `:(exclude)${p}`);
  await git.raw(['add', '--all', '--', '.', ...excluded]);
  const commit = await runGit(dir, ['commit', '--quiet', '--no-verify', '-m', message]);
  if (commit.code !== 0) {
    // git says "nothing to commit" on stdout, in the user's language: the index is asked instead,
    // only then (a job's way out runs one git process fewer).
    if ((await runGit(dir, ['diff', '--cached', '--quiet'])).code === 0) return undefined;
    throw new Error(`git commit failed in ${dir}: ${(commit.stderr || commit.stdout).trim()}`);
  }
  return (await git.raw(['rev-parse', 'HEAD'])).trim();
}

/**
 * Whether the worktree has any change git would commit (untracked files included), but for the
 * dependency folders orca linked in, which no commit of orca's takes.
 */
export async function hasChanges(dir: string): Promise<boolean> {
  const excluded = linkedDependencies(dir).map((name) => `:(exclude)${name}`);
  return (await gitAt(dir).raw(['status', '--porcelain', '--', '.', ...excluded])).trim().length > 0;
}
