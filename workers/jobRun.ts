import type { Redis } from 'ioredis';
import type { WorktreePool } from '../shared/core/git/worktreePool.js';
import type { OrcaHome } from '../shared/core/runtime/orcaHome.js';
import type { SandboxMode } from '../shared/core/runtime/sandboxMode.js';
import type { StartTrace } from '../shared/core/runtime/startTrace.js';
import type { Harness } from '../shared/harness/harness.js';
import type { PortLeaser } from '../shared/infra/ports/portLease.js';
import type { AgentJob, AgentJobResult } from '../shared/infra/queue/agentJob.js';
import type { Keys } from '../shared/infra/redis/keys.js';
import type { HookContext } from '../shared/policy/hooks/hookContext.js';
import type { HooksConfig } from '../shared/policy/hooks/hooksConfig.js';
import type { JobAgent } from './agents/jobAgent.js';
import type { JobSandbox } from './jobSandbox.js';
import type { ProgressReporter } from './progressReporter.js';
import type { JobWorkspace } from './workspace/jobWorkspace.js';
import type { releaseWorkspace } from './workspace/releaseWorkspace.js';

/** What a worker gives each job it runs (runAgentJob.ts). */
export interface JobDeps {
  redis: Redis;
  keys: Keys;
  home: OrcaHome;
  leaser: PortLeaser;
  /** The user's ~/.claude, overridable for tests. */
  userClaudeDir?: string;
  /**
   * True while the worker is shutting down: a job aborted then goes back on the queue, so its
   * worktree is released like an unchanged one (the next attempt discards it anyway).
   */
  handingBack?: () => boolean;
  /** The worker's own `--sandbox` mode; the stricter of it and the job's applies. */
  sandbox?: SandboxMode;
  /** Which of the worker's concurrent slots runs the job (the board's timeline draws a lane per slot). */
  slot?: number;
  /** The worker's pool of ready worktrees (git/worktreePool.ts). */
  pool?: WorktreePool;
}

/** One job on its way: what it is, what it runs with, and what it holds (released when it ends). */
export interface JobRun {
  job: AgentJob;
  deps: JobDeps;
  attempt: string;
  sessionDir: string;
  signal: AbortSignal;
  /** Stops the job at once with the reason. */
  stopJob: (reason: string) => void;
  sandbox: JobSandbox;
  progress: ProgressReporter;
  resultOf: (extra: Partial<AgentJobResult>) => AgentJobResult;
  hookContext: (dir: string, signal: AbortSignal) => HookContext;
  held: HeldByJob;
  /** The job's start steps timed (ORCA_START_TRACE), for the start benchmark. */
  trace?: StartTrace;
  /** Whether the run was aborted before the job started (asked at the job's start). */
  aborted: Promise<boolean>;
  /** The result of a job whose run was aborted before it started. */
  abortedBefore: () => AgentJobResult;
}

/** What a job has taken so far, each set as soon as it is taken, and what becomes of its workspace. */
export interface HeldByJob {
  lease?: Awaited<ReturnType<PortLeaser['lease']>>;
  repoHooks?: HooksConfig;
  workspace?: JobWorkspace;
  harness?: Harness;
  /** The job's external agent, started as soon as its worktree is known (agents/jobAgent.ts). */
  agent?: JobAgent;
  outcome: WorkspaceOutcome;
}

export type WorkspaceOutcome = Parameters<typeof releaseWorkspace>[1];
export type EndSteps = NonNullable<AgentJobResult['end_steps']>;
