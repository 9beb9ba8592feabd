import { gitAt, runGit } from './git.js';
import { orcaOwnedPaths } from './worktreeStartState.js';

/**
 * Commits everything in a worktree (tracked changes, new files; ignored files stay out) on its
 * current branch. Returns the new commit, or undefined when there was nothing to commit.
 */
export async function commitAll(dir: string, message: string, options: { exclude?: string[] } = {}): Promise<string | undefined> {
  const git = gitAt(dir);
  // `exclude`, and what orca recorded as the worktree's start state: paths orca itself put in the
  // worktree (a linked node_modules, `.env.orca`): a symlink is not a directory to git, so a
  // `node_modules/` ignore rule would not keep it out, and `.env.orca` may be ignored by no rule.
  const excluded = await excludeSpecs(dir, [...(options.exclude ?? []), ...orcaOwnedPaths(dir)]);
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
 * paths orca put there itself (linked folders, copied and generated files), which no commit of orca's takes.
 */
export async function hasChanges(dir: string): Promise<boolean> {
  // `status` takes an excluding pathspec that names an ignored or missing path (only `add` refuses
  // one): no `check-ignore` first, one git process fewer for each worktree a run hands over.
  const excluded = [...new Set(orcaOwnedPaths(dir))].map((file) => `:(exclude)${file}`);
  return (await gitAt(dir).raw(['status', '--porcelain', '--', '.', ...excluded])).trim().length > 0;
}

/**
 * `:(exclude)` pathspecs for the paths that git would otherwise take: an ignored one is left out,
 * for `git add` fails when a pathspec (even an excluding one) names an ignored file.
 */
export async function excludeSpecs(dir: string, paths: readonly string[]): Promise<string[]> {
  const unique = [...new Set(paths)];
  if (unique.length === 0) return [];
  // Exit 1 (none ignored) prints nothing on stderr: `raw` resolves with the empty output then.
  const ignored = new Set((await gitAt(dir).raw(['check-ignore', '--', ...unique])).split('\n').filter(Boolean));
  return unique.filter((p) => !ignored.has(p)).map((p) => `:(exclude)${p}`);
}
