import { existsSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { isInside } from '../../shared/core/files/workspace.js';
import { gitAt } from '../../shared/core/git/git.js';
import type { JobWorkspace } from './jobWorkspace.js';

/**
 * The folder a WorktreeCreate hook printed, checked: the top of a git working tree of its own
 * (never the user's checkout, a folder inside it or around it), at the task's base. The agent's
 * work goes on the branch checked out there or, if HEAD is detached, on the task branch: made
 * there, or switched to when a dead attempt left commits on it.
 */
export async function adoptHookWorktree(
  printed: string,
  repo: string,
  base: string,
  branch: string,
  resumable: () => Promise<boolean>,
): Promise<Pick<JobWorkspace, 'dir' | 'start' | 'branch' | 'madeByHook'>> {
  const given = path.resolve(repo, printed);
  if (!existsSync(given) || !statSync(given).isDirectory())
    throw new Error(`the WorktreeCreate hook named ${given}, which is not a folder`);
  const dir = realpathSync(given);
  let top: string;
  try {
    top = realpathSync((await gitAt(dir).raw(['rev-parse', '--show-toplevel'])).trim());
  } catch {
    throw new Error(
      `the WorktreeCreate hook named ${dir}, which is not a git worktree: the hook must print the folder of the worktree it made`,
    );
  }
  const overlap =
    top !== dir
      ? `a folder inside the working tree ${top}`
      : isInside(repo, dir)
        ? `the repository ${repo} or a folder around it`
        : undefined;
  if (overlap)
    throw new Error(
      `the WorktreeCreate hook named ${dir}, which is ${overlap}: the hook must print the folder of a separate worktree it made`,
    );
  const head = (await gitAt(dir).raw(['rev-parse', 'HEAD'])).trim();
  if (head !== base) throw new Error(`the WorktreeCreate hook's worktree ${dir} is at ${head}, not at the task's base ${base}`);
  const current = (await gitAt(dir).raw(['branch', '--show-current'])).trim();
  if (current) return { dir, start: head, branch: current, madeByHook: { createdBranch: false } };
  if (!(await resumable())) {
    await gitAt(dir).raw(['switch', '--quiet', '--create', branch]);
    return { dir, start: head, branch, madeByHook: { createdBranch: true } };
  }
  await gitAt(dir).raw(['switch', '--quiet', branch]);
  return { dir, start: (await gitAt(dir).raw(['rev-parse', 'HEAD'])).trim(), branch, madeByHook: { createdBranch: true } };
}
