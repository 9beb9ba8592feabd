import { branchRefusals, refusalsText } from '../../shared/policy/permissions/ownedCommit.js';
import { OwnedPaths } from '../../shared/policy/permissions/ownedPaths.js';

/**
 * The coordinator's own look at a task branch before it merges it (defence in depth: the worker's
 * commit took only owned changes already). The task's whole change, `base`..`tip`, may touch only
 * paths the task owns, and no guarded path unless the task names it literally. Returns why the
 * branch is not merged, or undefined when it may be.
 */
export async function mergeRefusal(
  repo: string,
  base: string,
  tip: string,
  owned: readonly string[] | undefined,
): Promise<string | undefined> {
  const refusals = await branchRefusals(repo, base, tip, new OwnedPaths(owned));
  if (refusals.length === 0) return undefined;
  return `not merged: the branch touches ${refusalsText(refusals)}; the task owns ${new OwnedPaths(owned).describe()}`;
}
