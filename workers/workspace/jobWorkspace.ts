import type { OrcaProjectConfig } from '../../shared/core/git/orcaProjectConfig.js';
import type { PooledWorktree } from '../../shared/core/git/poolTake.js';
import type { PoolPlace, WorktreePool } from '../../shared/core/git/worktreePool.js';
import type { OrcaHome } from '../../shared/core/runtime/orcaHome.js';
import type { StartTrace } from '../../shared/core/runtime/startTrace.js';
import type { AgentJob } from '../../shared/infra/queue/agentJob.js';
import type { HookContext } from '../../shared/policy/hooks/hookContext.js';
import type { HooksConfig } from '../../shared/policy/hooks/hooksConfig.js';

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
  /**
   * The pool's `git status` found the worktree exactly at `start` (nothing changed, untracked or
   * ignored), and since then orca wrote in it only its start files (`linked`): the watch's first
   * look asks git about those alone. Unset when anything else may have written there.
   */
  checkedClean?: boolean;
  /**
   * The pool's check of the tracked files, still running when the workspace was handed over (the
   * take left it beside the job's start: shared/core/git/poolTake.ts, TakeOptions.deferCheck):
   * settles to why the tree is not exactly `start`, or to undefined once it is; never rejects.
   * `checkedClean` is a claim until then. Whatever runs code in the tree or acts on the agent's
   * calls awaits it first (`treeAtStart`): the setup, an external agent, MCP servers, hooks, every
   * call (the watch's `ready`). The agent's first model request does not: it reads nothing there.
   */
  startCheck?: Promise<string | undefined>;
}

/**
 * A job's tree turned out not to be its start commit after it was handed over (JobWorkspace.startCheck):
 * nothing of the job ran there; the job fails, saying what was found.
 */
export class TreeNotAtStartError extends Error {
  constructor(
    readonly dir: string,
    readonly found: string,
  ) {
    super(
      `the worktree ${dir}, taken from the run's pool, was changed while it waited there (${found}): nothing of this job ran in it, and it is removed; the task can be run again`,
    );
    this.name = 'TreeNotAtStartError';
  }
}

/** Resolves once the workspace's tree is known to be exactly its start (at once when no check is pending); rejects with TreeNotAtStartError. */
export async function treeAtStart(workspace: JobWorkspace): Promise<void> {
  const found = await workspace.startCheck;
  if (found !== undefined) throw new TreeNotAtStartError(workspace.dir, found);
}

/** The repository's hooks around a workspace (WorktreeCreate, WorktreeRemove), and the context they run in for a folder. */
export interface WorkspaceHooks {
  config: HooksConfig;
  context: (dir: string) => HookContext;
}

/** What every kind of workspace is prepared from: the job, its repository at the base, and the pool it may take from. */
export interface WorkspaceGround {
  job: AgentJob;
  home: OrcaHome;
  /** The repository the worktree belongs to: the user's repo, or this worker's clone of the remote. */
  repo: string;
  /** Set when the job came through a remote. */
  remote?: string;
  /** The task's base, resolved to its commit. */
  base: string;
  /** The repository's orca.json at the base commit. */
  config: OrcaProjectConfig;
  /** This worker's pool of ready worktrees, when the repository can use one. */
  pool?: WorktreePool;
  /** The run's place in the pool: its repository at the base. */
  place: PoolPlace;
  /**
   * Places orca's start files in a worktree (`.worktreeinclude`'s files, linked folders, .env.orca); the paths it linked.
   * `commit`: the worktree's index is exactly that commit's tree (a whole checkout just made or checked clean at it).
   */
  linkStartFiles: (dir: string, commit?: string) => Promise<string[]>;
  /** The job's start steps timed (ORCA_START_TRACE). */
  trace?: StartTrace;
}

/** What a pooled worktree's check says of it (JobWorkspace.checkedClean, startCheck); nothing for a sparse one. */
export function pooledClaims(
  taken: PooledWorktree | undefined,
  sparse: readonly string[] | undefined,
): Pick<JobWorkspace, 'checkedClean' | 'startCheck'> {
  if (!taken || sparse) return {};
  return { ...(taken.checkedClean ? { checkedClean: true } : {}), ...(taken.pendingCheck ? { startCheck: taken.pendingCheck } : {}) };
}
