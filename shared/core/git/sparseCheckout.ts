import { parse } from 'shell-quote';
import { gitAt } from './git.js';

/**
 * What a sparse worktree holds: the paths orca.json's `sparsePaths` names, the task's own paths,
 * the paths its checks name that exist at the commit, and every file at the repository's top
 * (package.json, tsconfig.json, lock files: what any build or test reads first).
 */
export async function sparseSelection(
  repo: string,
  commit: string,
  given: { sparsePaths: readonly string[]; owned: readonly string[]; checks: readonly string[] },
): Promise<string[]> {
  const named = given.checks.flatMap((check) =>
    parse(check)
      .filter((token): token is string => typeof token === 'string' && !token.startsWith('-') && /[./]/.test(token))
      .map((token) => token.replace(/^\.\//, '').replace(/\/+$/, ''))
      .filter((token) => token !== '' && token !== '.' && !token.startsWith('/') && !token.split('/').includes('..')),
  );
  // `git ls-tree` answers with the named paths that are in the commit, folders and files alike.
  const inCommit =
    named.length > 0
      ? (await gitAt(repo).raw(['ls-tree', '--name-only', '-z', commit, '--', ...new Set(named)])).split('\0').filter(Boolean)
      : [];
  const globs = (paths: readonly string[]) => paths.map((p) => p.replace(/\/+$/, ''));
  return [...new Set([...globs(given.sparsePaths), ...globs(given.owned), ...inCommit])].filter(Boolean);
}

/**
 * Turns a worktree made with `--no-checkout` into a sparse checkout of `paths` (each a file, a
 * folder or a gitignore-style pattern), the top-level files always included, and checks those out.
 */
export async function checkOutSparse(dir: string, paths: readonly string[]): Promise<void> {
  const git = gitAt(dir);
  // Non-cone patterns: a task's owned paths are files as often as folders.
  const patterns = ['/*', '!/*/', ...paths.map((p) => (p.startsWith('/') ? p : `/${p}`))];
  await git.raw(['sparse-checkout', 'set', '--no-cone', '--', ...patterns]);
  await git.raw(['read-tree', '-mu', 'HEAD']);
}
