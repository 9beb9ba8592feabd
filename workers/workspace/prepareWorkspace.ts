import { realpathSync } from 'node:fs';
import { branchExists, resolveCommit } from '../../shared/core/git/git.js';
import { orcaBranch, sharedRef } from '../../shared/core/git/orcaBranch.js';
import { type OrcaProjectConfig, readOrcaProjectConfig } from '../../shared/core/git/orcaProjectConfig.js';
import { whyNoPool } from '../../shared/core/git/poolable.js';
import { ensureClone, remoteKey } from '../../shared/core/git/remoteClone.js';
import { sparseSelection } from '../../shared/core/git/sparseCheckout.js';
import { placeStartFiles } from '../../shared/core/git/startFiles.js';
import type { WorktreePool } from '../../shared/core/git/worktreePool.js';
import type { OrcaHome } from '../../shared/core/runtime/orcaHome.js';
import type { StartTrace } from '../../shared/core/runtime/startTrace.js';
import type { AgentJob } from '../../shared/infra/queue/agentJob.js';
import { prepareBranch } from './branchWorkspace.js';
import type { JobWorkspace, WorkspaceGround, WorkspaceHooks } from './jobWorkspace.js';
import { prepareScratch } from './scratchWorkspace.js';
import { prepareView } from './viewWorkspace.js';

/**
 * Prepares the workspace for a job. A writing role gets `git worktree add -b orca/<run>/<task>`
 * at the base the coordinator named; if a dead attempt left the branch behind, the new attempt
 * starts from that branch's last commit (complete work), never from the dead one's half-written
 * tree, which is discarded. A read-only role gets its run's detached view of the base commit.
 */
export async function prepareWorkspace(
  job: AgentJob,
  home: OrcaHome,
  hooks: WorkspaceHooks,
  /**
   * `readOnlyOnDisk`: no sandbox will keep the agent from writing a view, so its files are made
   * read-only. `ports`: the job's leased ports, written to the worktree's `.env.orca`. `pool`: this
   * worker's pool of ready worktrees: a writing job takes one when it can (and any job warms it).
   * `read`: the repository's answers (readRepository), when the caller asked for them earlier.
   */
  options: { readOnlyOnDisk?: boolean; ports?: number[]; pool?: WorktreePool; trace?: StartTrace; read?: RepositoryRead } = {},
): Promise<JobWorkspace> {
  const remote = job.repo.remote;
  const { repo, base, branchThere, config } = options.read ?? (await readRepository(job, home));
  options.trace?.mark('repo_read');
  const worktreeCreateHook = (hooks.config.byEvent.WorktreeCreate?.length ?? 0) > 0;
  const pool = options.pool && !whyNoPool({ project: config, worktreeCreateHook, remote: remote !== undefined }) ? options.pool : undefined;
  const ground: WorkspaceGround = {
    job,
    home,
    repo,
    remote,
    base,
    config,
    pool,
    place: { runId: job.run_id, repo, base },
    linkStartFiles: startFilesLinker(job, repo, remote, config, options.ports ?? []),
    trace: options.trace,
  };
  if (job.role.workspace === 'view') {
    // A run's read-only jobs (its coordinator, explore and plan agents) come before its writing ones:
    // the first starts the run's pool filling, in the background. A writing job only takes from a
    // pool (and refills it): alone (`orca agent`) it would fill one nobody uses.
    pool?.warm(ground.place);
    return prepareView(ground, options.readOnlyOnDisk);
  }
  const sparse = config.sparsePaths
    ? await sparseSelection(repo, job.base, { sparsePaths: config.sparsePaths, owned: job.owned_paths ?? [], checks: job.checks })
    : undefined;
  if (job.role.workspace === 'scratch') return prepareScratch(ground, sparse);
  return prepareBranch(ground, hooks, { branch: taskBranchOf(job)!, branchThere, sparse });
}

/** What a job's workspace is prepared from that only reads the repository (readRepository). */
export interface RepositoryRead {
  /** The repository (its real path, or this worker's clone of the job's remote). */
  repo: string;
  /** The job's base, resolved to its commit. */
  base: string;
  /** Whether the task branch is there already (a dead attempt's). */
  branchThere: boolean;
  /** orca.json at the base: the job's, or read from the repository. */
  config: OrcaProjectConfig;
}

/**
 * Everything a workspace needs from the repository before anything is made: the base's commit,
 * whether the task branch exists, orca.json at the base. It depends on nothing else of the job's
 * start (ports, hooks), so a job asks for it at once, beside those; all of it only reads the
 * repository (for a remote, its clone is fetched up to date first).
 */
export async function readRepository(job: AgentJob, home: OrcaHome): Promise<RepositoryRead> {
  const repo = await repositoryOf(job, home);
  const taskBranch = taskBranchOf(job);
  const [base, branchThere, config] = await Promise.all([
    resolveCommit(repo, job.base),
    taskBranch ? branchExists(repo, taskBranch) : false,
    job.project ?? readOrcaProjectConfig(repo, job.base),
  ]);
  return { repo, base, branchThere, config };
}

function taskBranchOf(job: AgentJob): string | undefined {
  return job.role.workspace === 'branch' ? (job.branch ?? orcaBranch(job.run_id, job.task_id)) : undefined;
}

/** The repository the job's worktree belongs to: the user's, or this worker's clone of the job's remote (fetched up to date). */
async function repositoryOf(job: AgentJob, home: OrcaHome): Promise<string> {
  const remote = job.repo.remote;
  if (!remote) return realpathSync(job.repo.path!);
  return ensureClone(remote, home.clone(remoteKey(remote)), {
    base: job.base,
    runId: job.run_id,
    taskRef: job.role.workspace === 'branch' ? sharedRef(job.run_id, job.task_id) : undefined,
  });
}

/**
 * Places orca's start files in a worktree and says which paths it linked. The user's checkout is
 * where `.worktreeinclude`'s files and the linked folders are (a remote's clone has none).
 */
function startFilesLinker(
  job: AgentJob,
  repo: string,
  remote: string | undefined,
  config: OrcaProjectConfig,
  ports: number[],
): (dir: string, commit?: string) => Promise<string[]> {
  return async (dir, commit) => {
    const entries = await placeStartFiles({
      repo,
      checkout: remote ? undefined : repo,
      dir,
      symlinkDirectories: config.symlinkDirectories,
      env: { runId: job.run_id, taskId: job.task_id, ports },
      commit,
    });
    return entries.filter((e) => e.kind === 'linked').map((e) => e.path);
  };
}
