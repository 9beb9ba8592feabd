import { existsSync, realpathSync } from 'node:fs';
import { gitAt, resolveCommit } from '../shared/core/git/git.js';

/** A problem the user can fix, reported as one line with exit code 2. */
export class UserError extends Error {
  override readonly name = 'UserError';
}

/**
 * The repository a command works on: it must be a git repository, and clean unless the user
 * allows otherwise (agents start from a commit, so uncommitted work would silently be left out).
 */
export async function inspectRepo(dir: string, options: { base?: string; allowDirty?: boolean }): Promise<{ root: string; base: string }> {
  if (!existsSync(dir)) throw new UserError(`${dir} does not exist: pass --repo with a git repository.`);
  // The three questions asked of git at once, from the folder given (git answers each for the
  // repository holding it, as from its root): one round trip before a run's id, not two. Their
  // answers are read in this order, so the first problem found is the one said, as when they were
  // asked one after the other.
  const toplevel = gitAt(dir).raw(['rev-parse', '--show-toplevel']);
  const resolved = resolveCommit(dir, options.base ?? 'HEAD');
  const looked = options.allowDirty ? undefined : gitAt(dir).raw(['status', '--porcelain', '--untracked-files=normal']);
  for (const answer of [toplevel, resolved, looked]) answer?.catch(() => undefined);
  let root: string;
  try {
    root = (await toplevel).trim();
  } catch {
    throw new UserError(`${dir} is not a git repository: run orca inside one, or pass --repo.`);
  }
  root = realpathSync(root);
  let base: string;
  try {
    base = await resolved;
  } catch {
    throw new UserError(
      options.base
        ? `--base ${options.base} is not a commit in ${root}: name an existing branch, tag or sha.`
        : `${root} has no commits yet: commit something first, agents start from a commit.`,
    );
  }
  if (looked) {
    const status = (await looked).trim();
    if (status) {
      const count = status.split('\n').length;
      throw new UserError(
        `${root} has ${count} uncommitted change(s); agents start from ${base.slice(0, 12)} and would not see them. Commit or stash them, or pass --allow-dirty.`,
      );
    }
  }
  return { root, base };
}
