import { agentNamed } from '../shared/core/agents/agentChoice.js';
import type { RunEventInput } from '../shared/core/events/runEvent.js';
import { integrationBranch } from '../shared/core/git/orcaBranch.js';
import { readOrcaProjectConfig } from '../shared/core/git/orcaProjectConfig.js';
import type { Effort } from '../shared/core/model/thinking.js';
import type { SandboxMode } from '../shared/core/runtime/sandboxMode.js';
import type { CheckNetwork } from '../shared/core/sandbox/checkNetwork.js';
import type { AskWait } from './asks/askOptions.js';
import { isSlashInvocation, resolveSlashTask, type SlashTask } from './commands/slashTask.js';
import { detectChecks } from './detectChecks.js';
import { checkHandOffOptions, handOff } from './handoff/handOff.js';
import { chooseModel } from './modelChoice.js';
import { announceRun, type PreStart, preStart, type StartRepository } from './preStart.js';
import { UserError } from './repoCheck.js';
import { coordinateRun } from './run/runCoordinator.js';
import { RunRecorder } from './run/runRecorder.js';
import { printRunResult } from './run/runResult.js';
import type { RunSettings } from './run/runSettings.js';
import { OrcaServices } from './services.js';

export interface RunCommandOptions {
  task: string;
  repo: string;
  base?: string;
  workers: number;
  concurrency: number;
  localWorkers: boolean;
  model?: string;
  thinking?: string;
  effort?: Effort;
  script?: string;
  checks: string[];
  /** `--check-network`: host (default) or none. */
  checkNetwork: CheckNetwork;
  approve: boolean;
  json: boolean;
  allowDirty: boolean;
  maxAgents?: number;
  maxTokens?: number;
  maxCost?: number;
  timeoutMinutes?: number;
  /** How long an agent waits for an answer to a permission request, and whether anyone can answer. */
  asks: AskWait;
  /** Allow rules that answer matching permission requests before anyone is asked. */
  yesTo: string[];
  /** Claude Code plugin folders (`--plugin-dir`, repeatable). */
  pluginDirs?: string[];
  /** False with --no-memory: no cards are shown to the agents and none are kept. */
  memory: boolean;
  /** `--push [REMOTE]`: the remote the integration branch goes to when the run passes. */
  push?: string;
  /** `--push-partial`: push a PARTIAL run too. */
  pushPartial?: boolean;
  /** `--branch NAME`: the branch name on the remote (default the integration branch's). */
  branch?: string;
  /** `--pr-body FILE`: where the run's pull request description is written. */
  prBody?: string;
  /** `--mcp`: the MCP servers the run gives its built-in roles (docs/mcp.md). */
  mcp?: string[];
  /** `--agent`: agent names by role (docs/agents.md). */
  agents?: Record<string, string>;
  /** `--sandbox` (or ORCA_SANDBOX), and where it came from for the line. */
  sandbox: SandboxMode;
  sandboxSource?: string;
  /** `--share` (or ORCA_SHARE): the git remote workers on other hosts get the repository from. */
  share?: string;
}

/** `orca run`: one whole run, from a task to a verified integration branch. */
export async function runCommand(options: RunCommandOptions): Promise<number> {
  const start = await preStart(options, {
    read: (repository) => readRunTask(options, repository),
    // The command's `model` is the run's unless --model says otherwise.
    chooseModel: (slash) => chooseModel({ ...options, model: options.model ?? slash?.command.model }),
  });
  const slash = start.command;
  const say = options.json ? undefined : (line: string) => process.stderr.write(`${line}\n`);
  for (const warning of slash?.warnings ?? []) process.stderr.write(`orca: ${warning}\n`);
  const chosen = integrationChecks(options.checks, start.root, say);
  const checks = chosen.map((check) => check.command);
  // Redis and the local workers first: a run id is said only once the run can exist.
  const services = await OrcaServices.open({
    workers: options.localWorkers ? options.workers : 0,
    concurrency: options.concurrency,
    sandbox: options.sandbox,
  });
  try {
    const runId = announceRun(start.sandbox);
    sayRunSetup(start, say);
    const recorder = new RunRecorder(services.redis, services.keys, runId);
    const run: NewRun = {
      options,
      start,
      task: slash?.task ?? options.task,
      checks,
      checkSources: chosen.map((check) => check.source),
      budgets: budgetsOf(options),
    };
    await recorder.record(runCreated(run, runId));
    const result = await coordinateRun(services, recorder, runSettings(run, say));
    const handoff = await handOff(services, start.root, result, options, say);
    const code = printRunResult({ ...result, ...(handoff.json ? { handoff: handoff.json } : {}) }, recorder.state, options.json);
    return code === 0 && handoff.failed ? 1 : code;
  } finally {
    await services.close();
  }
}

/**
 * What `orca run` reads at the base before it starts: the slash command a task names (the run
 * then runs the command's prompt), the hand-off flags, and orca.json (one the workers cannot use
 * is said now, not per task).
 */
async function readRunTask(options: RunCommandOptions, { root, base, pluginDirs }: StartRepository): Promise<SlashTask | undefined> {
  const slash = isSlashInvocation(options.task) ? await resolveSlashTask({ repo: root, base, task: options.task, pluginDirs }) : undefined;
  await checkHandOffOptions(root, options);
  const project = await readOrcaProjectConfig(root, base).catch((error: Error) => {
    throw new UserError(error.message);
  });
  // An agent --agent names that nobody defines is said now, not when its first task is queued.
  for (const name of Object.values(options.agents ?? {})) {
    const named = agentNamed(name, project.agents);
    if ('problem' in named) throw new UserError(named.problem);
  }
  return slash;
}

/** The checks `--check` names, or the ones found in the repository (said, with why each); each with why it was chosen. */
function integrationChecks(given: string[], root: string, say?: (line: string) => void): Array<{ command: string; source: string }> {
  if (given.length > 0) return given.map((command) => ({ command, source: '--check' }));
  const found = detectChecks(root);
  say?.(
    found.length > 0
      ? `integration checks: ${found.map((c) => `${c.command} (${c.because})`).join(', ')}`
      : 'no integration checks found: pass --check CMD to name them',
  );
  return found.map((check) => ({ command: check.command, source: `detected: ${check.because}` }));
}

/** What the run starts with, for the person watching: the Scripted model, the shared remote, the slash command, the memory. */
function sayRunSetup({ script, share, command: slash, memory }: PreStart<SlashTask | undefined>, say?: (line: string) => void): void {
  if (script) say?.('Scripted model: no LLM is used in this run.');
  if (share) say?.(`shared over ${share}: workers on any host that can reach it take the jobs`);
  if (slash) {
    const attached = slash.files.length > 0 ? `, with ${slash.files.join(', ')}` : '';
    const limited = slash.toolLimit ? `; its agents may use only ${slash.toolLimit.rules.join(', ')}` : '';
    say?.(`command ${slash.invoked.split(/\s/, 1)[0]} (${slash.command.file})${attached}${limited}`);
  }
  if (memory) {
    for (const problem of memory.problems) say?.(`memory: ${problem}`);
    if (memory.claudeCodeDir) say?.(`memory: reading Claude Code's memory in ${memory.claudeCodeDir}`);
  }
}

function budgetsOf(options: RunCommandOptions): RunSettings['budgets'] {
  return {
    maxAgents: options.maxAgents ?? Math.max(1, options.workers * options.concurrency),
    maxTokens: options.maxTokens,
    maxCostUsd: options.maxCost,
    wallClockMs: options.timeoutMinutes ? options.timeoutMinutes * 60_000 : undefined,
  };
}

/** A run about to be created: the command's options, what was checked before it, and what follows from them. */
interface NewRun {
  options: RunCommandOptions;
  start: PreStart<SlashTask | undefined>;
  /** The task the agents get: the slash command's prompt when the task named one. */
  task: string;
  checks: string[];
  /** Why each check was chosen, in their order. */
  checkSources: string[];
  budgets: RunSettings['budgets'];
}

/** The run's first event: everything `orca resume` needs to carry on exactly as the run began. */
function runCreated({ options, start, task, checks, checkSources, budgets }: NewRun, runId: string): RunEventInput {
  const { script, model: choice, command: slash } = start;
  const { source: _source, ...scriptContent } = script ?? { source: '' };
  return {
    type: 'run_created',
    task,
    repo: start.root,
    base: start.base,
    integration_branch: integrationBranch(runId),
    model: choice?.id ?? 'scripted',
    scripted: Boolean(script),
    checks,
    settings: {
      script: script ? scriptContent : undefined,
      model_id: choice?.id,
      thinking: choice?.thinking,
      effort: choice?.effort,
      approve: options.approve,
      max_agents: budgets.maxAgents,
      max_tokens: budgets.maxTokens,
      max_cost_usd: budgets.maxCostUsd,
      deadline: budgets.wallClockMs ? Date.now() + budgets.wallClockMs : undefined,
      // Only a timeout the user gave: a resumed run decides anew whether someone can answer (resumeCommand.ts).
      ask_timeout_ms: options.asks.given,
      yes_to: options.yesTo,
      plugin_dirs: start.pluginDirs,
      memory: options.memory,
      mcp: options.mcp,
      agents: options.agents,
      check_network: options.checkNetwork,
      check_sources: checkSources,
      sandbox: options.sandbox,
      share: start.share,
      command: slash
        ? { invoked: slash.invoked, file: slash.command.file, allowed_tools: slash.toolLimit?.rules, model: slash.command.model }
        : undefined,
    },
  };
}

function runSettings({ options, start, task, checks, budgets }: NewRun, say?: (line: string) => void): RunSettings {
  return {
    task,
    repo: start.root,
    base: start.base,
    checks,
    checkNetwork: options.checkNetwork,
    model: start.model,
    script: start.script,
    approve: options.approve,
    budgets,
    say,
    tty: Boolean(process.stderr.isTTY) && !options.json,
    asks: { timeoutMs: options.asks.timeoutMs, nobody: options.asks.nobody, yesTo: options.yesTo },
    memory: start.memory,
    toolLimit: start.command?.toolLimit,
    pluginDirs: start.pluginDirs,
    mcp: options.mcp,
    agents: options.agents ?? {},
    sandbox: options.sandbox,
    share: start.share,
  };
}
