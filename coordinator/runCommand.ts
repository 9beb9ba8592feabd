import path from 'node:path';
import { integrationBranch } from '../shared/core/git/orcaBranch.js';
import { readOrcaProjectConfig } from '../shared/core/git/orcaProjectConfig.js';
import { checkShared, shareUrl } from '../shared/core/git/sharedRemote.js';
import { MISSING_API_KEY } from '../shared/core/model/anthropic.js';
import { loadScriptFile } from '../shared/core/model/scriptFile.js';
import type { Effort } from '../shared/core/model/thinking.js';
import { OrcaHome } from '../shared/core/runtime/orcaHome.js';
import type { SandboxMode } from '../shared/core/runtime/sandboxMode.js';
import { sandboxStatus } from '../shared/policy/permissions/sandboxLine.js';
import { isSlashInvocation, resolveSlashTask, type SlashTask } from './commands/slashTask.js';
import { detectChecks } from './detectChecks.js';
import { checkHandOffOptions, handOff } from './handoff/handOff.js';
import { RunMemory } from './memory/runMemory.js';
import { chooseModel } from './modelChoice.js';
import { inspectRepo, UserError } from './repoCheck.js';
import { coordinateRun } from './run/runCoordinator.js';
import { RunRecorder } from './run/runRecorder.js';
import { printRunResult } from './run/runResult.js';
import { newRunId } from './runId.js';
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
  checkNetwork: 'host' | 'none';
  approve: boolean;
  json: boolean;
  allowDirty: boolean;
  maxAgents?: number;
  maxTokens?: number;
  maxCost?: number;
  timeoutMinutes?: number;
  /** How long an agent waits for an answer to a permission request (ms; 0 denies at once). */
  askTimeoutMs: number;
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
  /** `--sandbox` (or ORCA_SANDBOX), and where it came from for the line. */
  sandbox: SandboxMode;
  sandboxSource?: string;
  /** `--share` (or ORCA_SHARE): the git remote workers on other hosts get the repository from. */
  share?: string;
}

function toUserError(error: unknown): never {
  throw new UserError(error instanceof Error ? error.message : String(error));
}

/** `orca run`: one whole run, from a task to a verified integration branch. */
export async function runCommand(options: RunCommandOptions): Promise<number> {
  const { root, base } = await inspectRepo(path.resolve(options.repo), { base: options.base, allowDirty: options.allowDirty });
  const pluginDirs = (options.pluginDirs ?? []).map((dir) => path.resolve(dir));
  // A task that names a slash command runs the command's prompt (read at the base commit).
  const slash: SlashTask | undefined = isSlashInvocation(options.task)
    ? await resolveSlashTask({ repo: root, base, task: options.task, pluginDirs })
    : undefined;
  const task = slash?.task ?? options.task;
  await checkHandOffOptions(root, options);
  // Before the run is announced: an orca.json the workers cannot use is said now, not per task.
  await readOrcaProjectConfig(root, base).catch((error: Error) => {
    throw new UserError(error.message);
  });
  const share = options.share ? shareUrl(options.share) : undefined;
  if (share) await checkShared(share, root).catch(toUserError);
  const script = options.script ? await loadScriptFile(path.resolve(options.script)) : undefined;
  if (!script && !process.env.ANTHROPIC_API_KEY) throw new UserError(MISSING_API_KEY);
  // The command's `model` is the run's unless --model says otherwise.
  const choice = script ? undefined : chooseModel({ ...options, model: options.model ?? slash?.command.model });
  // Before the run is announced: a run id printed for a run that cannot start would mislead.
  new OrcaHome(process.env.ORCA_HOME || undefined).ensureWritable();
  const sandbox = sandboxStatus(options.sandbox, { source: options.sandboxSource });
  if (sandbox.refusal) throw new UserError(sandbox.refusal);
  const say = options.json ? undefined : (line: string) => process.stderr.write(`${line}\n`);
  for (const warning of slash?.warnings ?? []) process.stderr.write(`orca: ${warning}\n`);
  const startedAt = Date.now();
  const memory = options.memory
    ? new RunMemory({ orcaHome: new OrcaHome(process.env.ORCA_HOME || undefined).root, repo: root, startedAt })
    : undefined;

  let checks = options.checks;
  if (checks.length === 0) {
    const found = detectChecks(root);
    checks = found.map((check) => check.command);
    say?.(
      found.length > 0
        ? `integration checks: ${found.map((c) => `${c.command} (${c.because})`).join(', ')}`
        : 'no integration checks found: pass --check CMD to name them',
    );
  }

  const runId = newRunId();
  process.stderr.write(`orca: run ${runId}\n`);
  // Said even with --json (on stderr): what the agents' commands run in is never left unsaid.
  process.stderr.write(`orca: ${sandbox.line}\n`);
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
  const model = choice?.id ?? 'scripted';

  const services = await OrcaServices.open({
    workers: options.localWorkers ? options.workers : 0,
    concurrency: options.concurrency,
    sandbox: options.sandbox,
  });
  try {
    const recorder = new RunRecorder(services.redis, services.keys, runId);
    const budgets = {
      maxAgents: options.maxAgents ?? Math.max(1, options.workers * options.concurrency),
      maxTokens: options.maxTokens,
      maxCostUsd: options.maxCost,
      wallClockMs: options.timeoutMinutes ? options.timeoutMinutes * 60_000 : undefined,
    };
    const { source: _source, ...scriptContent } = script ?? { source: '' };
    await recorder.record({
      type: 'run_created',
      task,
      repo: root,
      base,
      integration_branch: integrationBranch(runId),
      model,
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
        ask_timeout_ms: options.askTimeoutMs,
        yes_to: options.yesTo,
        plugin_dirs: pluginDirs,
        memory: options.memory,
        mcp: options.mcp,
        check_network: options.checkNetwork,
        sandbox: options.sandbox,
        share,
        command: slash
          ? { invoked: slash.invoked, file: slash.command.file, allowed_tools: slash.toolLimit?.rules, model: slash.command.model }
          : undefined,
      },
    });
    const result = await coordinateRun(services, recorder, {
      task,
      repo: root,
      base,
      checks,
      checkNetwork: options.checkNetwork,
      model: choice,
      script,
      approve: options.approve,
      budgets,
      say,
      tty: Boolean(process.stderr.isTTY) && !options.json,
      asks: { timeoutMs: options.askTimeoutMs, yesTo: options.yesTo },
      memory,
      toolLimit: slash?.toolLimit,
      pluginDirs,
      mcp: options.mcp,
      sandbox: options.sandbox,
      share,
    });
    const handoff = await handOff(services, root, result, options, say);
    const code = printRunResult({ ...result, ...(handoff.json ? { handoff: handoff.json } : {}) }, recorder.state, options.json);
    return code === 0 && handoff.failed ? 1 : code;
  } finally {
    await services.close();
  }
}
