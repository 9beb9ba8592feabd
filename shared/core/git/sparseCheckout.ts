import { parse } from 'shell-quote';
import { gitAt } from './git.js';

/**
 * The folders a sparse worktree holds (git's cone mode: each folder whole, and the files directly
 * in every folder above it, the repository's top-level files included: package.json, lock files,
 * what any build or test reads first). They cover orca.json's `sparsePaths`, the task's own paths
 * and the paths its checks name; a file stands for its folder, a glob for the folder before it.
 */
export async function sparseSelection(
  repo: string,
  commit: string,
  given: { sparsePaths: readonly string[]; owned: readonly string[]; checks: readonly string[] },
): Promise<string[]> {
  const named = given.checks.flatMap((check) =>
    parse(check)
      .filter((token): token is string => typeof token === 'string' && !token.startsWith('-') && /[./]/.test(token))
      .map(clean)
      .filter((token) => token !== '' && !token.startsWith('/') && !token.split('/').includes('..')),
  );
  const wanted = [...new Set([...given.sparsePaths, ...given.owned].map(clean).map(literalPrefix).filter(Boolean))];
  // What each path is at the commit (`tree` or `blob`); a check's word that is no path there is not one.
  const asked = [...new Set([...wanted, ...named])];
  const types = new Map<string, string>();
  if (asked.length > 0) {
    for (const line of (await gitAt(repo).raw(['ls-tree', '-z', commit, '--', ...asked])).split('\0').filter(Boolean)) {
      const [meta, file] = line.split('\t');
      types.set(file!, meta!.split(' ')[1]!);
    }
  }
  const folderOf = (p: string) => {
    const type = types.get(p);
    // A path not there yet is a folder the task will fill, unless its name looks like a file's.
    const isFile = type === 'blob' || (type === undefined && /\.[^/]+$/.test(p));
    return isFile ? p.split('/').slice(0, -1).join('/') : p;
  };
  const folders = [...wanted, ...named.filter((p) => types.has(p))].map(folderOf).filter(Boolean);
  return [...new Set(folders)].sort();
}

function clean(p: string): string {
  return p.replace(/^\.\//, '').replace(/\/+$/, '');
}

/** The part of a path before its first glob character, cut back to a whole folder name. */
function literalPrefix(p: string): string {
  const at = p.search(/[*?[{]/);
  if (at < 0) return p;
  return p.slice(0, at).split('/').slice(0, -1).join('/');
}

/**
 * Turns a worktree made with `--no-checkout` into a cone-mode sparse checkout of `folders` and
 * checks those out (cone mode: git matches folders by hash, not each file against patterns, which
 * is what makes it fast on a large tree).
 */
export async function checkOutSparse(dir: string, folders: readonly string[]): Promise<void> {
  const git = gitAt(dir);
  await git.raw(['sparse-checkout', 'set', '--cone', '--', ...folders]);
  await git.raw(['read-tree', '-mu', 'HEAD']);
}
