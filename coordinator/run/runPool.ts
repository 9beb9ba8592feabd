import { realpathSync } from 'node:fs';
import { settingsFromConfig } from '../../shared/context/config/trustedSettings.js';
import type { TaskStatus } from '../../shared/core/events/runEvent.js';
import type { OrcaProjectConfig } from '../../shared/core/git/orcaProjectConfig.js';
import { whyNoPool } from '../../shared/core/git/poolable.js';
import { WorktreePool } from '../../shared/core/git/worktreePool.js';
import type { OrcaHome } from '../../shared/core/runtime/orcaHome.js';
import type { TrustedConfig } from '../../shared/infra/queue/trustedConfig.js';
import { hooksFromSettings } from '../../shared/policy/hooks/hookSettings.js';

/** What afterMerge needs of each of the plan's tasks. */
export interface PlanTaskState {
  status: TaskStatus;
  depends_on: readonly string[];
}

/**
 * The coordinator's hand in its run's pool of ready worktrees on its own host (the local workers
 * share its ORCA_HOME): filled from the run's start, while explore and plan run, to the run's agent
 * slots, and moved to the integration head after a merge where a job may still start there (afterMerge), in the background. Undefined when
 * the repository is not pooled (poolable.ts says why) or ORCA_POOL_SIZE is 0.
 */
export class RunPool {
  private constructor(
    private readonly pool: WorktreePool,
    private readonly runId: string,
    private readonly repo: string,
    private readonly slots: number,
  ) {}

  static open(input: {
    home: OrcaHome;
    runId: string;
    repo: string;
    slots: number;
    project: OrcaProjectConfig;
    config: TrustedConfig;
    shared: boolean;
  }): RunPool | undefined {
    const hooks = hooksFromSettings(settingsFromConfig(input.repo, input.config).sources);
    const worktreeCreateHook = (hooks.byEvent.WorktreeCreate?.length ?? 0) > 0;
    if (whyNoPool({ project: input.project, worktreeCreateHook, remote: input.shared })) return undefined;
    const pool = new WorktreePool(input.home, { slots: input.slots });
    if (!pool.enabled) return undefined;
    // The workers name the repository by its real path: the pool's folder is keyed by it.
    return new RunPool(pool, input.runId, realpathSync(input.repo), input.slots);
  }

  /** The pool fills at `head` (the run's base, or the integration head after a merge). */
  warm(head: string): void {
    this.pool.warm({ runId: this.runId, repo: this.repo, base: head }, this.slots);
  }

  /**
   * After a merge made `head`: the pool moves there only while a task that waits for its
   * dependencies to merge is still pending: it will be dispatched at a later head. A task without
   * dependencies took its base when the run's dispatch began (one pending now waits for an agent
   * slot, its base chosen), and jobs already dispatched start at the head they were given: moving
   * the pool for them would only make each of their takes check its worktree out again, back at
   * their base.
   */
  afterMerge(head: string, tasks: readonly PlanTaskState[]): void {
    if (tasks.some((task) => task.status === 'pending' && task.depends_on.length > 0)) this.warm(head);
  }

  /** Settles once the pool's filling and moving under way are done. */
  idle(): Promise<void> {
    return this.pool.idle();
  }

  /** Before the run's pools are removed: nothing of this process's is still filling them. */
  close(): Promise<void> {
    return this.pool.close();
  }
}
