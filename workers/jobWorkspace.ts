import { existsSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { isInside } from '../shared/core/files/workspace.js';
import { branchExists, commitsAhead, deleteBranch, gitAt, resolveCommit } from '../shared/core/git/git.js';
import { orcaBranch, sharedRef, wipRef } from '../shared/core/git/orcaBranch.js';
import { type OrcaProjectConfig, readOrcaProjectConfig } from '../shared/core/git/orcaProjectConfig.js';
import { whyNoPool } from '../shared/core/git/poolable.js';
import { ensureClone, pushBranch, remoteKey } from '../shared/core/git/remoteClone.js';
import { repoKey } from '../shared/core/git/repoKey.js';
import { withRepoLock } from '../shared/core/git/repoLock.js';
import { checkOutSparse, sparseSelection } from '../shared/core/git/sparseCheckout.js';
import { placeStartFiles } from '../shared/core/git/startFiles.js';
import { saveWorkInProgress } from '../shared/core/git/workInProgress.js';
import {
  addWorktree,
  addWorktreeForBranch,
  ensureView,
  listWorktrees,
  pruneWorktrees,
  removeWorktree,
} from '../shared/core/git/worktree.js';
import type { WorktreePool } from '../shared/core/git/worktreePool.js';
import type { OrcaHome } from '../shared/core/runtime/orcaHome.js';
import type { AgentJob } from '../shared/infra/queue/agentJob.js';
import type { HookContext } from '../shared/policy/hooks/hookContext.js';
import { runHooks } from '../shared/policy/hooks/hookRunner.js';
import type { HooksConfig } from '../shared/policy/hooks/hooksConfig.js';

/** Where one job's agent works, and how to put it away afterwards. */
export interface JobWorkspace {
  /** The repository the worktree belongs to: the user's repo, or this worker's clone of the remote. */
  repo: string;
  /** The agent's workspace root. */
  dir: string;
  kind: 'branch' | 'scratch' | 'view';
  branch?: string;
  /** The task's base commit. */
  base: string;
  /** The commit the agent starts from: the task's base, or a dead attempt's last commit. */
  start: string;
  /** Paths orca linked into the worktree, kept out of the agent's commit. */
  linked: string[];
  /** The repository's orca.json at the base commit (its defaults when it has none). */
  config: OrcaProjectConfig;
  /** The paths a sparse checkout holds; unset for a whole checkout. */
  sparse?: string[];
  /** Set when the job came through a remote: the branch is pushed back there. */
  remote?: string;
  /**
   * Set when a WorktreeCreate hook supplied the folder: the hook removes it (WorktreeRemove), not
   * orca. `createdBranch`: orca made the task branch in it (the hook left HEAD detached).
   */
  madeByHook?: { createdBranch: boolean };
  /** A view that was found changed and rebuilt: why, for a notice in the run's events. */
  rebuilt?: string;
  /** The worktree came ready from the run's pool of worktrees (git/worktreePool.ts). */
  pooled?: boolean;
}

/**
 * Prepares the workspace for a job. A writing role gets `git worktree add -b orca/<run>/<task>`
 * at the base the coordinator named; if a dead attempt left the branch behind, the new attempt
 * starts from that branch's last commit (complete work), never from the dead one's half-written
 * tree, which is discarded. A read-only role gets its run's detached view of the base commit.
 */
export async function prepareWorkspace(
  job: AgentJob,
  home: OrcaHome,
  hooks: { config: HooksConfig; context: (dir: string) => HookContext },
  /**
   * `readOnlyOnDisk`: no sandbox will keep the agent from writing a view, so its files are made
   * read-only. `ports`: the job's leased ports, written to the worktree's `.env.orca`. `pool`: this
   * worker's pool of ready worktrees: a writing job takes one when it can (and any job warms it).
   */
  options: { readOnlyOnDisk?: boolean; ports?: number[]; pool?: WorktreePool } = {},
): Promise<JobWorkspace> {
  const remote = job.repo.remote;
  const repo = remote
    ? await ensureClone(remote, home.clone(remoteKey(remote)), {
        base: job.base,
        runId: job.run_id,
        taskRef: job.role.workspace === 'branch' ? sharedRef(job.run_id, job.task_id) : undefined,
      })
    : realpathSync(job.repo.path!);
  const taskBranch = job.role.workspace === 'branch' ? (job.branch ?? orcaBranch(job.run_id, job.task_id)) : undefined;
  // All only read the repository, so they are asked at once: they are on every job's way to its agent.
  const [base, branchThere, config] = await Promise.all([
    resolveCommit(repo, job.base),
    taskBranch ? branchExists(repo, taskBranch) : false,
    job.project ?? readOrcaProjectConfig(repo, job.base),
  ]);
  // The user's checkout, where `.worktreeinclude`'s files and the linked folders are (a remote's clone has none).
  const startFiles = (dir: string) =>
    placeStartFiles({
      repo,
      checkout: remote ? undefined : repo,
      dir,
      symlinkDirectories: config.symlinkDirectories,
      env: { runId: job.run_id, taskId: job.task_id, ports: options.ports ?? [] },
    });
  const linkedOf = (entries: Awaited<ReturnType<typeof startFiles>>) => entries.filter((e) => e.kind === 'linked').map((e) => e.path);
  const worktreeCreateHook = (hooks.config.byEvent.WorktreeCreate?.length ?? 0) > 0;
  const pool = options.pool && !whyNoPool({ project: config, worktreeCreateHook, remote: remote !== undefined }) ? options.pool : undefined;
  const place = { runId: job.run_id, repo, base };
  // A run's read-only jobs (its coordinator, explore and plan agents) come before its writing ones:
  // the first starts the run's pool filling, in the background. A writing job only takes from a
  // pool (and refills it): alone (`orca agent`) it would fill one nobody uses.
  if (job.role.workspace === 'view') pool?.warm(place);

  if (job.role.workspace === 'view') {
    // A view is every read-only agent's of the run: nothing of one worktree's (copied files, .env.orca) goes there.
    // The run's own view of the commit (removed when the run ends), checked clean before each reuse.
    const dir = home.view(job.run_id, repoKey(repo), job.base);
    const view = await ensureView(repo, dir, job.base, options);
    return { repo, dir, kind: 'view', base: job.base, start: view.commit, linked: [], config, remote, rebuilt: view.rebuilt };
  }
  const sparse = config.sparsePaths
    ? await sparseSelection(repo, job.base, { sparsePaths: config.sparsePaths, owned: job.owned_paths ?? [], checks: job.checks })
    : undefined;
  if (job.role.workspace === 'scratch') {
    // Verification builds and probes here; nothing it does is committed, and it is removed after.
    const dir = home.worktree(job.run_id, job.task_id);
    if (existsSync(dir)) await removeWorktree(repo, dir);
    const taken = await pool?.take(place, dir);
    const start = taken ?? (await addWorktree({ repo, dir, base: job.base, noCheckout: sparse !== undefined }));
    if (sparse) await checkOutSparse(dir, sparse);
    const linked = linkedOf(await startFiles(dir));
    return { repo, dir, kind: 'scratch', base: job.base, start, linked, config, sparse, remote, pooled: taken !== undefined };
  }

  const branch = taskBranch!;
  const dir = home.worktree(job.run_id, job.task_id);
  // A dead attempt's tree is never reused: whatever it half-wrote is saved under its work-in-progress
  // ref, then the tree goes. It may live under another ORCA_HOME on this host, still holding the
  // branch: the job is ours now.
  if (existsSync(dir)) await saveThenRemove(repo, dir, job);
  // Only an existing branch can be held by another worktree: a fresh task skips the listing.
  if (branchThere) {
    for (const stale of await listWorktrees(repo)) {
      if (stale.branch === branch && existsSync(stale.dir)) await saveThenRemove(repo, stale.dir, job);
    }
  }

  // Under the repository's worktree lock, as orca's own `git worktree add` is: a hook that adds a
  // worktree races every other add, remove and prune on `.git/config.lock` (seen failing with 128).
  // With none configured there is nothing to serialise: no lock on every job's way to its agent.
  const createHook = () => runHooks(hooks.config, 'WorktreeCreate', { name: `${job.run_id}/${job.task_id}` }, hooks.context(repo));
  const hook = worktreeCreateHook ? await withRepoLock(repo, createHook) : await createHook();
  if (hook.blocked) throw new Error(`a WorktreeCreate hook refused the worktree: ${hook.reason ?? 'no reason given'}`);

  let start: string;
  let pooled = false;
  if (hook.worktreePath) {
    const adopted = await adoptHookWorktree(hook.worktreePath, repo, job.base, branch, () =>
      previousAttempt(repo, branch, job.base, remote ? sharedRef(job.run_id, job.task_id) : undefined),
    );
    // The hook made the folder its own way: orca adds only its own files to it.
    const linked = linkedOf(await startFiles(adopted.dir));
    return { repo, ...adopted, kind: 'branch', base: job.base, linked, config, remote };
  }
  const previous = await previousAttempt(repo, branch, job.base, remote ? sharedRef(job.run_id, job.task_id) : undefined, branchThere);
  if (previous) {
    // A dead attempt's commits may reach past the sparse paths: its branch is checked out whole.
    start = await addWorktreeForBranch(repo, dir, branch);
  } else {
    // A ready worktree from the pool when there is one (only the branch's ref is made), else a new one.
    const taken = await pool?.take(place, dir, branch);
    pooled = taken !== undefined;
    start = taken ?? (await addWorktree({ repo, dir, base: job.base, branch, noCheckout: sparse !== undefined }));
    if (sparse) await checkOutSparse(dir, sparse);
  }
  const linked = linkedOf(await startFiles(dir));
  return {
    repo,
    dir,
    kind: 'branch',
    branch,
    base: job.base,
    start,
    linked,
    config,
    sparse: previous ? undefined : sparse,
    remote,
    pooled,
  };
}

/**
 * Whether a dead attempt left commits on the task branch. A branch with none is deleted so the
 * new attempt starts cleanly from the base. For a remote, the branch an attempt pushed (on any
 * host: `pushed` is the task's ref on the remote, fetched into the clone) counts, and wins over
 * this clone's own branch: what was pushed is complete, a local branch may be older.
 */
async function previousAttempt(repo: string, branch: string, base: string, pushedRef?: string, exists?: boolean): Promise<boolean> {
  if (pushedRef) {
    const pushed = (await gitAt(repo).raw(['for-each-ref', '--format=%(objectname)', pushedRef])).trim();
    if (pushed && (await commitsAhead(repo, base, pushed)) > 0) {
      await gitAt(repo).raw(['branch', '--quiet', '--force', branch, pushed]);
      return true;
    }
  }
  if (!(exists ?? (await branchExists(repo, branch)))) return false;
  if ((await commitsAhead(repo, base, branch)) > 0) return true;
  await deleteBranch(repo, branch);
  return false;
}

/**
 * The folder a WorktreeCreate hook printed, checked: the top of a git working tree of its own
 * (never the user's checkout, a folder inside it or around it), at the task's base. The agent's
 * work goes on the branch checked out there or, if HEAD is detached, on the task branch: made
 * there, or switched to when a dead attempt left commits on it.
 */
async function adoptHookWorktree(
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

/**
 * A task worktree about to go: its uncommitted changes are first committed to the task's
 * work-in-progress ref (refs/orca/wip/<run>/<task>), so no attempt's work is lost with its tree.
 * A folder that is no longer a worktree of the repository has nothing git can save, and goes.
 */
async function saveThenRemove(repo: string, dir: string, job: AgentJob): Promise<void> {
  await saveWork(repo, dir, job, 'before a new attempt replaced its worktree');
  await removeWorktree(repo, dir);
}

async function saveWork(repo: string, dir: string, job: AgentJob, when: string): Promise<void> {
  const resolved = path.resolve(dir);
  if (!(await listWorktrees(repo)).some((worktree) => path.resolve(worktree.dir) === resolved)) return;
  const message = `orca: work in progress of task ${job.task_id} in run ${job.run_id}\n\nSaved by a worker ${when}: ${dir}`;
  try {
    await saveWorkInProgress(dir, wipRef(job.run_id, job.task_id), message);
  } catch (error) {
    const detail = error instanceof Error ? error.message.trim() : String(error);
    throw new Error(`could not save the uncommitted changes in ${dir} ${when}: ${detail}; they are still there`, { cause: error });
  }
}

/**
 * After the agent: a scratch worktree is always removed, a branch worktree without changes too
 * (what it holds beyond its commit is saved first, unless the agent completed: its commit took
 * everything); one with a commit, or a failed agent's, stays for the merge (and for inspection)
 * until the run hands it over at its end.
 */
export async function releaseWorkspace(
  workspace: JobWorkspace,
  outcome: { committed: boolean; keep: boolean; completed: boolean; job: AgentJob },
  hooks: { config: HooksConfig; context: (dir: string) => HookContext },
): Promise<void> {
  if (workspace.kind === 'view') return;
  if (workspace.kind === 'scratch') {
    await removeWorktree(workspace.repo, workspace.dir);
    return;
  }
  if (workspace.remote && workspace.branch && outcome.committed)
    await pushBranch(workspace.repo, workspace.branch, sharedRef(outcome.job.run_id, outcome.job.task_id));
  if (outcome.committed || outcome.keep) return;
  if (!outcome.completed) await saveWork(workspace.repo, workspace.dir, outcome.job, 'before its worktree was removed');
  const removeHook = () => runHooks(hooks.config, 'WorktreeRemove', { worktree_path: workspace.dir }, hooks.context(workspace.repo));
  if ((hooks.config.byEvent.WorktreeRemove?.length ?? 0) > 0) await withRepoLock(workspace.repo, removeHook);
  else await removeHook();
  if (workspace.madeByHook) {
    // The hook that made the folder removes it (Claude Code's contract): orca deletes nothing it
    // did not make, and only its own branch, once no worktree holds it.
    await pruneWorktrees(workspace.repo);
    if (!workspace.madeByHook.createdBranch || existsSync(workspace.dir)) return;
  } else {
    await removeWorktree(workspace.repo, workspace.dir);
  }
  // Compared with the base, not the start: a dead attempt's commits on the branch are work to keep.
  if (
    workspace.branch &&
    (await branchExists(workspace.repo, workspace.branch)) &&
    (await commitsAhead(workspace.repo, workspace.base, workspace.branch)) === 0
  ) {
    await deleteBranch(workspace.repo, workspace.branch);
  }
}
