import { repoKey } from '../../shared/core/git/repoKey.js';
import { ensureView } from '../../shared/core/git/worktree.js';
import type { JobWorkspace, WorkspaceGround } from './jobWorkspace.js';

/**
 * A read-only role's workspace: the run's own view of the base commit (removed when the run ends),
 * checked clean before each reuse. A view is every read-only agent's of the run: nothing of one
 * worktree's (copied files, .env.orca) goes there. `readOnlyOnDisk`: no sandbox will keep the
 * agent from writing it, so its files are made read-only.
 */
export async function prepareView({ job, home, repo, remote, config }: WorkspaceGround, readOnlyOnDisk?: boolean): Promise<JobWorkspace> {
  const dir = home.view(job.run_id, repoKey(repo), job.base);
  const view = await ensureView(repo, dir, job.base, { readOnlyOnDisk });
  return { repo, dir, kind: 'view', base: job.base, start: view.commit, linked: [], config, remote, rebuilt: view.rebuilt };
}
