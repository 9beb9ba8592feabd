import path from 'node:path';
import { settingsFromConfig } from '../shared/context/config/trustedSettings.js';
import { worktreeEnvVars } from '../shared/core/git/envOrcaFile.js';
import { commonGitDir } from '../shared/core/git/repoLock.js';
import type { SandboxMode } from '../shared/core/runtime/sandboxMode.js';
import { runWorktreeSetup, type SetupOutcome } from '../shared/harness/setupCommands.js';
import type { AgentJob } from '../shared/infra/queue/agentJob.js';
import type { TrustedConfig } from '../shared/infra/queue/trustedConfig.js';
import { networkRules } from '../shared/policy/permissions/sandbox.js';
import type { ProgressReporter } from './progressReporter.js';
import type { JobWorkspace } from './workspace/jobWorkspace.js';

/** Where a job's setup log goes: beside its transcript, in its session folder. */
export function setupLogOf(sessionDir: string): string {
  return path.join(sessionDir, 'setup.log');
}

/**
 * orca.json's `setup` in a job's new writing worktree (never in a shared view), sandboxed as the
 * agent's Bash will be, each command reported as a `setup` event (the board shows it with its
 * log's tail). Nothing to do for a view, or for a repository whose orca.json names no setup.
 */
export async function setUpWorktree(input: {
  job: AgentJob;
  workspace: JobWorkspace;
  ports: number[];
  sessionDir: string;
  signal: AbortSignal;
  progress: ProgressReporter;
  /** The job's sandbox mode on this worker (`--sandbox`): the setup obeys it as Bash does. */
  sandboxMode: SandboxMode;
  /** The run's trusted configuration: the network allowance comes from its settings, never the worktree's. */
  config: TrustedConfig;
}): Promise<SetupOutcome> {
  const { job, workspace, progress } = input;
  if (workspace.kind === 'view' || workspace.config.setup.length === 0) return { ok: true, results: [] };
  const settings = settingsFromConfig(workspace.dir, input.config);
  const rules = networkRules(settings);
  return runWorktreeSetup({
    dir: workspace.dir,
    commands: workspace.config.setup,
    timeoutMs: workspace.config.setupTimeoutSeconds * 1000,
    logFile: setupLogOf(input.sessionDir),
    tempDir: path.join(input.sessionDir, 'tmp'),
    sandbox: job.role.sandbox,
    mode: input.sandboxMode,
    domains: rules.domains,
    sockets: rules.sockets,
    extraReadable: [await commonGitDir(workspace.repo), ...workspace.linked.map((name) => path.join(workspace.repo, name))],
    env: {
      ...worktreeEnvVars({ runId: job.run_id, taskId: job.task_id, ports: input.ports }),
      ORCA_ROLE: job.role.name,
      ...job.env,
    },
    signal: input.signal,
    notify: (message) => void progress.agentEvent({ type: 'notice', level: 'info', message: `setup: ${message}`, at: Date.now() }),
    onCommand: (result) => progress.agentEvent({ type: 'setup', at: Date.now(), tree: workspace.start, ...result }),
  });
}
