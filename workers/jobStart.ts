import { realpathSync } from 'node:fs';
import os from 'node:os';
import { readTrustedConfig } from '../shared/context/config/readTrustedConfig.js';
import { settingsFromConfig } from '../shared/context/config/trustedSettings.js';
import { type GitSnapshot, readFreshWorktreeSnapshot } from '../shared/context/prompt/gitSnapshot.js';
import { isExternalAgent } from '../shared/core/agents/agentBackend.js';
import type { OrcaProjectConfig } from '../shared/core/git/orcaProjectConfig.js';
import type { SandboxKind } from '../shared/core/runtime/sandboxMode.js';
import { settled } from '../shared/core/runtime/settled.js';
import { portLeaseOwner } from '../shared/infra/ports/portLease.js';
import type { AgentJob } from '../shared/infra/queue/agentJob.js';
import type { TrustedConfig } from '../shared/infra/queue/trustedConfig.js';
import { hooksFromSettings } from '../shared/policy/hooks/hookSettings.js';
import { anyHook, type HooksConfig } from '../shared/policy/hooks/hooksConfig.js';
import { CheckoutBaseline } from '../shared/policy/permissions/checkoutState.js';
import { userClaudeDir } from '../shared/policy/settings/loadSettings.js';
import type { JobDeps, JobRun } from './jobRun.js';
import type { ProgressReporter } from './progressReporter.js';
import type { JobWorkspace } from './workspace/jobWorkspace.js';
import { prepareWorkspace, type RepositoryRead, readRepository } from './workspace/prepareWorkspace.js';

// A job's first steps, up to its workspace (runAgentJob.ts runs them in order): asked at once where
// they are independent, each holding what it takes in `run.held` for the release to give back.

/**
 * The job's first steps, all independent of each other and asked at once: whether its run was
 * aborted, its ports and configuration, and the repository's answers its workspace needs. Settled
 * together (a lease taken meanwhile is held for the release to give back); undefined when the run
 * was aborted, whatever else failed. A remote's clone is fetched only once the run is known not aborted.
 */
export async function startTogether(
  run: JobRun,
): Promise<({ ports: number[]; config: TrustedConfig; hooks: HooksConfig } & { repository: RepositoryRead }) | undefined> {
  const { job, deps } = run;
  const reading = job.repo.remote
    ? run.aborted.then((aborted) => (aborted ? undefined : readRepository(job, deps.home)))
    : readRepository(job, deps.home);
  const read = reading.then((repository) => {
    run.trace?.mark('repository_answered');
    return repository;
  });
  try {
    const [aborted, configured, repository] = await settled([run.aborted, leaseAndConfigure(run), read]);
    return aborted ? undefined : { ...configured, repository: repository! };
  } catch (error) {
    if (await run.aborted.catch(() => false)) return undefined;
    throw error;
  }
}

/**
 * The job's ports and its configuration. They are independent: asked at once, settled together,
 * so a lease taken while the configuration failed is held for the release to give back. Hooks and
 * settings come only from the trusted configuration (the run's base commit and the user's
 * folders), never from a tree an agent wrote; a settings file that cannot be read fails the job here.
 */
async function leaseAndConfigure(run: JobRun): Promise<{ ports: number[]; config: TrustedConfig; hooks: HooksConfig }> {
  const { job, deps, attempt, held } = run;
  const [, config] = await settled([
    deps.leaser.lease(job.ports, portLeaseOwner(job.run_id, `${job.task_id}|${attempt}`)).then((taken) => {
      held.lease = taken;
      run.trace?.mark('leased');
    }),
    job.config ?? configOfJob(job, deps),
  ]);
  const ports = held.lease!.ports;
  held.repoHooks = hooksFromSettings(settingsFromConfig(job.repo.path ?? deps.home.root, config).sources);
  return { ports, config, hooks: held.repoHooks };
}

/** The job's workspace, prepared (and held); a read-only view found changed and rebuilt is said in the run's events. */
export async function openWorkspace(run: JobRun, hooks: HooksConfig, ports: number[], read: RepositoryRead): Promise<JobWorkspace> {
  const { job, deps, progress } = run;
  const workspace = await prepareWorkspace(
    job,
    deps.home,
    { config: hooks, context: (dir) => run.hookContext(dir, run.signal) },
    { readOnlyOnDisk: run.sandbox.kind === 'none', ports, pool: deps.pool, trace: run.trace, read },
  );
  run.held.workspace = workspace;
  if (workspace.rebuilt) {
    await progress.agentEvent({
      type: 'notice',
      level: 'warn',
      message: `the read-only view ${workspace.dir} was rebuilt before this agent read it: ${workspace.rebuilt}`,
      at: Date.now(),
    });
  }
  return workspace;
}

/**
 * The configuration of a job queued without one (by hand, or by a test): read here the way the
 * coordinator reads it, from the repository's git objects at the job's base and from this host's
 * user folders. A remote repository's files are not on this host: only the user's apply then.
 */
function configOfJob(job: AgentJob, deps: JobDeps): Promise<TrustedConfig> {
  return readTrustedConfig({
    project: job.repo.path ? { repo: job.repo.path, commit: job.base } : undefined,
    userClaudeDir: deps.userClaudeDir ?? userClaudeDir(),
    homeDir: os.homedir(),
  });
}

/** The run's event that the job's workspace is ready: where it is, its ports, its slot, its sandbox and its agent. */
export async function announceWorkspace(
  progress: ProgressReporter,
  workspace: JobWorkspace,
  ports: number[],
  slot: number | undefined,
  sandbox: SandboxKind,
  agent: string,
): Promise<void> {
  await progress.runEvent({
    type: 'workspace',
    kind: workspace.kind,
    dir: workspace.dir,
    branch: workspace.branch ?? null,
    start: workspace.start,
    ports,
    host: os.hostname(),
    pid: process.pid,
    ...(slot !== undefined ? { slot } : {}),
    sandbox,
    agent,
    ...(workspace.pooled ? { pooled: true } : {}),
  });
}

/**
 * The baseline of the user's checkout for the watch of a job that writes in a local repository
 * (checkoutState.ts). Begun now, beside the making of the worktree, where something of the session
 * runs before its first call (an external agent starts with the workspace; a hook of the
 * repository's settings may run at the session's start); else it is begun once the session is
 * built, after the take, and the first call waits for it (jobHarness.ts). Undefined where something of the repository's
 * runs before the agent (a WorktreeCreate hook, a setup in orca.json, the job's or read at its
 * base): it may change the checkout, and what it changes is no agent's, so the baseline is taken after it.
 */
export function checkoutBaselineFor(job: AgentJob, hooks: HooksConfig, project: OrcaProjectConfig): CheckoutBaseline | undefined {
  if (!job.repo.path || job.role.workspace === 'view') return undefined;
  if ((hooks.byEvent.WorktreeCreate ?? []).length > 0 || project.setup.length > 0) return undefined;
  const baseline = new CheckoutBaseline(realpathSync(job.repo.path));
  if (isExternalAgent(job.agent) || anyHook(hooks)) baseline.taken();
  return baseline;
}

/**
 * A task worktree checked out just now at the base is known to be clean (but for what orca linked
 * in): its snapshot needs no status of the whole tree before the agent's first request.
 */
export async function freshSnapshot(workspace: JobWorkspace, base: string): Promise<GitSnapshot | undefined> {
  if (workspace.kind !== 'branch' || !workspace.branch || workspace.madeByHook || workspace.start !== base) return undefined;
  return readFreshWorktreeSnapshot(workspace.dir, workspace.branch, workspace.start, workspace.linked);
}
