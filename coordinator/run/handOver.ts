import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { isInside } from '../../shared/core/files/workspace.js';
import { hasChanges } from '../../shared/core/git/commit.js';
import { gitAt } from '../../shared/core/git/git.js';
import { INTEGRATION_TASK, parseOrcaBranch } from '../../shared/core/git/orcaBranch.js';
import { removeRunPools } from '../../shared/core/git/poolRemoval.js';
import { removeViewsUnder } from '../../shared/core/git/viewTree.js';
import { listWorktrees, removeWorktree } from '../../shared/core/git/worktree.js';
import { mapLimited } from '../../shared/core/runtime/mapLimited.js';
import type { OrcaHome } from '../../shared/core/runtime/orcaHome.js';
import { listDir } from '../clean/listDir.js';

/** How many worktrees' `git status` the hand-over runs at once. */
const STATUSES_AT_ONCE = 4;

export interface HandedOver {
  taskId: string;
  branch: string;
  dir: string;
  /** `removed`: orca made it and it held nothing beyond its commit; `detached`: its files stay, the branch is free. */
  action: 'removed' | 'detached';
  /** It holds uncommitted changes (a failed or aborted agent's): `orca clean` saves them before it goes. */
  changes: boolean;
}

/**
 * At a run's end its branches are the user's: every worktree of the run in the user's repository
 * lets go of its branch, so `git switch orca/<run>/<task>` (or a merge, or a checkout in another
 * worktree) works at once. A worktree orca made under this ORCA_HOME that holds nothing beyond its
 * commit is removed; one with uncommitted changes (a failed or aborted agent's, kept for
 * inspection), or one a WorktreeCreate hook or another ORCA_HOME made, is detached: its files
 * stay where they are. A task still at work is left alone. The integration worktree is the
 * integration branch's to close (merge/integration.ts). The run's read-only views and its pools of
 * ready worktrees are removed.
 */
export async function handOverWorktrees(
  repo: string,
  runId: string,
  home: OrcaHome,
  ended: (taskId: string) => boolean,
): Promise<HandedOver[]> {
  const handed: HandedOver[] = [];
  const worktrees = await listWorktrees(repo);
  const tasks = worktrees.flatMap((worktree) => {
    const named = worktree.branch ? parseOrcaBranch(worktree.branch) : undefined;
    if (!named || named.runId !== runId || named.taskId === INTEGRATION_TASK || !ended(named.taskId)) return [];
    // One gone from disk is pruned below, by whoever removes worktrees next.
    return existsSync(worktree.dir) ? [{ worktree, named }] : [];
  });
  // Each worktree's status asked a few at a time (a run of many tasks ends sooner); the removals
  // after are one at a time, under the repository's lock.
  const changed = await mapLimited(tasks, STATUSES_AT_ONCE, ({ worktree }) => hasChanges(worktree.dir));
  for (const [index, { worktree, named }] of tasks.entries()) {
    const changes = changed[index]!;
    const ours = isInside(path.resolve(worktree.dir), home.runWorktrees(runId));
    if (ours && !changes) await removeWorktree(repo, worktree.dir);
    else await gitAt(worktree.dir).raw(['switch', '--quiet', '--detach']);
    handed.push({
      taskId: named.taskId,
      branch: worktree.branch!,
      dir: worktree.dir,
      action: ours && !changes ? 'removed' : 'detached',
      changes,
    });
  }
  // The run's folder of worktrees, once empty, goes with them (a failed agent's kept one keeps it).
  if (listDir(home.runWorktrees(runId)).length === 0) rmSync(home.runWorktrees(runId), { recursive: true, force: true });
  // The run's read-only views are the run's alone: they go with it (no later run reads what it left).
  await removeViewsUnder(home.runViews(runId));
  // So is its pool of ready worktrees, this ORCA_HOME's and any other on this host the repository lists.
  await removeRunPools(home, runId, [repo], new Map([[repo, worktrees.map((worktree) => worktree.dir)]]));
  return handed;
}
