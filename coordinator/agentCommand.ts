import type { RoleDefinition } from '../roles/role.js';
import type { AgentBackend } from '../shared/core/agents/agentBackend.js';
import { agentForRole, choiceByRole, parseAgentOption } from '../shared/core/agents/agentChoice.js';
import { readOrcaProjectConfig } from '../shared/core/git/orcaProjectConfig.js';
import { commandMark } from '../shared/core/runtime/commandTrace.js';
import type { AgentCommandOptions, AgentRead } from './agentCommandOptions.js';
import { chooseModel } from './modelChoice.js';
import { preStart, type StartRepository } from './preStart.js';
import { UserError } from './repoCheck.js';
import { readRunConfig } from './runConfig.js';

/**
 * `orca agent`: one agent through the queue and a worker process, no coordinator. A writing role
 * leaves a commit on `orca/<run>/<task>`. Exit code: 0 completed, 1 failed, 130 aborted.
 *
 * The modules the role and the run need (the tools' catalog behind the roles; bullmq, ioredis and
 * the job's schema behind the queue: about 200 files, most of this command's CPU before its job is
 * queued) are imported when it starts, not with it: they load while the pre-start's git processes,
 * sandbox probe and Redis ping run, instead of before any of them start (docs/benchmarks.md, the
 * single agent beside `claude -p`).
 */
export async function agentCommand(options: AgentCommandOptions): Promise<number> {
  const roles = import('../roles/roleLookup.js');
  const run = import('./agentCommandRun.js');
  // A pre-start that fails leaves these unawaited: a failure of theirs is not this command's to report.
  for (const loading of [roles, run]) loading.catch(() => undefined);
  const start = await preStart(options, {
    read: (repository) => readAgentRole(options, repository, roles),
    // The role's own model, thinking and effort win; the combination the agent will run is checked.
    chooseModel: ({ role }) => chooseModel(options, role),
    // An ACP agent brings its own model and key: orca's own loop does not run.
    ownLoop: ({ agent }) => agent.kind === 'orca',
  });
  commandMark('pre_start');
  const running = await run;
  commandMark('run_module');
  return running.runAgent(options, start);
}

/**
 * The role, and every file the agent's settings, hooks and context come from, as of the base
 * commit. The git reads start before the roles' module is waited for, so they run while it loads;
 * their failures are still said in the order they were before (configuration, role, agent).
 */
async function readAgentRole(
  options: AgentCommandOptions,
  { root, base, pluginDirs }: StartRepository,
  roles: Promise<typeof import('../roles/roleLookup.js')>,
): Promise<AgentRead> {
  const reading = readRunConfig(root, base);
  const project = readOrcaProjectConfig(root, base);
  project.catch(() => undefined);
  const config = await reading;
  commandMark('config_read');
  for (const problem of config.problems) process.stderr.write(`orca: configuration: ${problem}\n`);
  const lookup = await roles;
  commandMark('roles_module');
  const { role, warnings } = await lookup.findRoleLoadingTools(root, options.role, { config, pluginDirs });
  commandMark('role_found');
  for (const warning of warnings) process.stderr.write(`orca: ${warning}\n`);
  return { role, config, agent: await agentOfRole(options, role, project), project: await project };
}

/** What runs the agent: `--agent`, else its role file's `agent:`, else orca.json's at the base, else orca's own. */
async function agentOfRole(
  options: AgentCommandOptions,
  role: RoleDefinition,
  projectConfig: ReturnType<typeof readOrcaProjectConfig>,
): Promise<AgentBackend> {
  const option = options.agent ? parseAgentOption(options.agent, role.name.toLowerCase()) : { ok: true as const, byRole: {} };
  if (!option.ok) throw new UserError(option.problem);
  const project = await projectConfig;
  const chosen = agentForRole(role.name, {
    option: option.byRole,
    roleFile: role.agent,
    project: choiceByRole(project.agent),
    defined: project.agents,
  });
  if ('problem' in chosen) throw new UserError(chosen.problem);
  return chosen;
}
