import { existsSync } from 'node:fs';
import { checkOutSparse } from '../../shared/core/git/sparseCheckout.js';
import { addWorktree, removeWorktree } from '../../shared/core/git/worktree.js';
import { type JobWorkspace, pooledClaims, type WorkspaceGround } from './jobWorkspace.js';

/**
 * Verification's workspace: a detached worktree at the base, from the pool when it has one ready.
 * It builds and probes there; nothing it does is committed, and the worktree is removed after.
 */
export async function prepareScratch(ground: WorkspaceGround, sparse: string[] | undefined): Promise<JobWorkspace> {
  const { job, home, repo, pool, place } = ground;
  const dir = home.worktree(job.run_id, job.task_id);
  if (existsSync(dir)) await removeWorktree(repo, dir);
  const taken = await pool?.takeChecked(place, dir, undefined, { deferCheck: !sparse });
  const start = taken?.start ?? (await addWorktree({ repo, dir, base: job.base, noCheckout: sparse !== undefined }));
  if (sparse) await checkOutSparse(dir, sparse);
  // A whole checkout made at the base, or taken from the pool checked clean at it: its index is the base's tree.
  const linked = await ground.linkStartFiles(dir, sparse ? undefined : start);
  return {
    repo,
    dir,
    kind: 'scratch',
    base: job.base,
    start,
    linked,
    config: ground.config,
    sparse,
    remote: ground.remote,
    pooled: taken !== undefined,
    ...pooledClaims(taken, sparse),
  };
}
