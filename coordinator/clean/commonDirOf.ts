import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { gitAt } from '../../shared/core/git/git.js';

/** The git common dir of the repository `dir` is in (its `.git`, or a bare repository), if any. */
export async function commonDirOf(dir: string): Promise<string | undefined> {
  if (!existsSync(dir)) return undefined;
  try {
    return realpathSync(path.resolve(dir, (await gitAt(dir).raw(['rev-parse', '--git-common-dir'])).trim()));
  } catch {
    return undefined;
  }
}

/**
 * The git common dir of the repository `dir` is the top of a working tree of (a worktree, or a
 * checkout); undefined for a folder that only sits inside one, or is in none: a worktree whose
 * records were pruned, or whose repository is gone, is a plain folder now.
 */
export async function worktreeRepoOf(dir: string): Promise<string | undefined> {
  if (!existsSync(dir)) return undefined;
  let out: string;
  try {
    out = await gitAt(dir).raw(['rev-parse', '--show-toplevel', '--git-common-dir']);
  } catch {
    return undefined;
  }
  const [top = '', common = ''] = out.trim().split('\n');
  if (realpathSync(top) !== realpathSync(dir)) return undefined;
  return realpathSync(path.resolve(dir, common));
}
