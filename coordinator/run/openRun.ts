import type { RoleDefinition } from '../../roles/role.js';
import { availableRoles } from '../../roles/roleCatalog.js';
import { settingsFromConfig } from '../../shared/context/config/trustedSettings.js';
import { type OrcaProjectConfig, readOrcaProjectConfig } from '../../shared/core/git/orcaProjectConfig.js';
import type { TrustedConfig } from '../../shared/infra/queue/trustedConfig.js';
import { networkRules } from '../../shared/policy/permissions/sandbox.js';
import { IntegrationBranch } from '../merge/integration.js';
import { readRunConfig } from '../runConfig.js';
import type { OrcaServices } from '../services.js';
import { JobRunner } from './jobRunner.js';
import type { RunContext } from './runContext.js';
import { type PlanTaskState, RunPool } from './runPool.js';
import type { RunRecorder } from './runRecorder.js';
import type { RunSettings } from './runSettings.js';
import { SharedRun } from './sharedRun.js';

/**
 * What a run's phases work with, read once at the run's base: every agent's configuration, the
 * roles and orca.json; with the integration branch, the pool of ready worktrees it keeps warm,
 * and the runner of the run's jobs.
 */
export async function openRun(
  services: OrcaServices,
  recorder: RunRecorder,
  settings: RunSettings,
  { signal, say }: { signal: AbortSignal; say: (line: string) => void },
): Promise<{ ctx: RunContext; pool?: RunPool }> {
  const runId = recorder.runId;
  // Every agent's settings, hooks, rules, skills and instructions: read once, at the run's base
  // commit (and from the user's folders), never from a tree an agent wrote (a task branch, the
  // merged tree the Verification agent works on).
  const config = await readRunConfig(settings.repo, settings.base);
  for (const problem of config.problems) say(`configuration: ${problem}`);
  const roles = new Map(availableRoles(settings.repo, { config, pluginDirs: settings.pluginDirs }).roles.map((role) => [role.name, role]));
  // Agents in the sandbox cannot reach the integration worktree: it is put back before a merge only after someone was given it.
  const integration = new IntegrationBranch(settings.repo, runId, services.home.integrationWorktree(runId), {
    agentsConfined: settings.sandbox !== 'off',
  });
  // Read once, at the run's base: a task that changes orca.json changes no later task's setup.
  const project = await readOrcaProjectConfig(settings.repo, settings.base);
  const pool = RunPool.open({
    home: services.home,
    runId,
    repo: settings.repo,
    slots: settings.budgets.maxAgents,
    project,
    config,
    shared: settings.share !== undefined,
  });
  integration.onMerged = (head) => pool?.afterMerge(head, planTaskStates(recorder));
  const ctx: RunContext = {
    services,
    recorder,
    jobs: jobRunnerFor(services, recorder, settings, { signal, project, config }),
    integration,
    repo: settings.repo,
    task: settings.task,
    base: settings.base,
    checks: settings.checks,
    checkNetwork: settings.checkNetwork,
    checkRules: networkRules(settingsFromConfig(settings.repo, config)),
    sandbox: settings.sandbox,
    role: (name) => roles.get(name) as RoleDefinition,
    signal,
    say,
  };
  return { ctx, pool };
}

/** The runner of the run's jobs: each carries the run's model, limits, configuration and options to its worker. */
function jobRunnerFor(
  services: OrcaServices,
  recorder: RunRecorder,
  settings: RunSettings,
  { signal, project, config }: { signal: AbortSignal; project: OrcaProjectConfig; config: TrustedConfig },
): JobRunner {
  return new JobRunner(services, recorder, {
    repo: settings.repo,
    model: settings.model,
    script: settings.script,
    maxInFlight: settings.budgets.maxAgents,
    signal,
    asks: { timeout_ms: settings.asks.timeoutMs, yes_to: settings.asks.yesTo, nobody: settings.asks.nobody },
    memory: settings.memory,
    toolLimit: settings.toolLimit,
    pluginDirs: settings.pluginDirs ?? [],
    project,
    mcp: settings.mcp,
    agents: settings.agents ?? {},
    config,
    sandbox: settings.sandbox,
    shared: settings.share ? new SharedRun(settings.share, settings.repo, recorder.runId) : undefined,
  });
}

/** The statuses and dependencies of the plan's subtasks (not the coordinator's, the planner's or the verification's own jobs). */
function planTaskStates(recorder: RunRecorder): PlanTaskState[] {
  const { state } = recorder;
  return (state.run.plan?.subtasks ?? []).flatMap((task) => {
    const status = state.tasks.get(task.id)?.status;
    return status ? [{ status, depends_on: task.depends_on }] : [];
  });
}
