import type { Redis } from 'ioredis';
import type { RoleDefinition } from '../roles/role.js';
import { findRole, roleSpec } from '../roles/roleCatalog.js';
import { describeFiled } from '../shared/context/memory/fileCard.js';
import type { AgentBackend } from '../shared/core/agents/agentBackend.js';
import { agentForRole, choiceByRole, parseAgentOption } from '../shared/core/agents/agentChoice.js';
import type { AgentEvent } from '../shared/core/events/agentEvent.js';
import { orcaBranch, wipRef } from '../shared/core/git/orcaBranch.js';
import { readOrcaProjectConfig } from '../shared/core/git/orcaProjectConfig.js';
import type { Effort } from '../shared/core/model/thinking.js';
import type { OrcaHome } from '../shared/core/runtime/orcaHome.js';
import type { SandboxMode } from '../shared/core/runtime/sandboxMode.js';
import { followRunEvents } from '../shared/infra/board/runEventFollower.js';
import type { AgentJobInput, AgentJobResult } from '../shared/infra/queue/agentJob.js';
import { agentJobId } from '../shared/infra/queue/agentQueue.js';
import { publishAbort } from '../shared/infra/queue/runAbort.js';
import type { TrustedConfig } from '../shared/infra/queue/trustedConfig.js';
import type { Keys } from '../shared/infra/redis/keys.js';
import { connectRedis } from '../shared/infra/redis/redisConnection.js';
import { recordTaskState, waitForAgentJob } from './agentJobWait.js';
import type { AskWait } from './asks/askOptions.js';
import { TerminalAsks } from './asks/terminalAsks.js';
import { eventLine } from './eventLine.js';
import { chooseModel } from './modelChoice.js';
import { announceRun, type PreStart, preStart, type StartRepository } from './preStart.js';
import { UserError } from './repoCheck.js';
import { CoordinatorPulse } from './run/coordinatorPulse.js';
import { handOverWorktrees } from './run/handOver.js';
import { SharedRun } from './run/sharedRun.js';
import { readRunConfig } from './runConfig.js';
import { recordRun, recordRunEnd } from './runLedger.js';
import { OrcaServices } from './services.js';

export interface AgentCommandOptions {
  role: string;
  prompt: string;
  repo: string;
  base?: string;
  model?: string;
  thinking?: string;
  effort?: Effort;
  script?: string;
  json: boolean;
  workers: number;
  localWorkers: boolean;
  allowDirty: boolean;
  /** How long the agent waits for an answer to a permission request, and whether anyone can answer. */
  asks: AskWait;
  /** Allow rules that answer matching permission requests before anyone is asked. */
  yesTo: string[];
  /** False with --no-memory. */
  memory: boolean;
  /** Claude Code plugin folders (`--plugin-dir`, repeatable). */
  pluginDirs?: string[];
  /** `--mcp`: the MCP servers a built-in role gets (docs/mcp.md). */
  mcp?: string[];
  /** `--agent`: what runs the agent (a bare name is this role's; docs/agents.md). */
  agent?: string;
  /** `--sandbox` (or ORCA_SANDBOX), and where it came from for the line. */
  sandbox: SandboxMode;
  sandboxSource?: string;
  /** `--share` (or ORCA_SHARE): the git remote workers on other hosts get the repository from. */
  share?: string;
}

/**
 * `orca agent`: one agent through the queue and a worker process, no coordinator. A writing role
 * leaves a commit on `orca/<run>/<task>`. Exit code: 0 completed, 1 failed, 130 aborted.
 */
export async function agentCommand(options: AgentCommandOptions): Promise<number> {
  const start = await preStart(options, {
    read: (repository) => readAgentRole(options, repository),
    // The role's own model, thinking and effort win; the combination the agent will run is checked.
    chooseModel: ({ role }) => chooseModel(options, role),
    // An ACP agent brings its own model and key: orca's own loop does not run.
    ownLoop: ({ agent }) => agent.kind === 'orca',
  });
  const { root, base, share, memory } = start;
  for (const problem of memory?.problems ?? []) process.stderr.write(`orca: memory: ${problem}\n`);
  // Redis and the local workers first: a run id is said only once the run can exist.
  const services = await OrcaServices.open({ workers: options.localWorkers ? options.workers : 0, sandbox: options.sandbox });
  const runId = announceRun(start.sandbox);
  const taskId = start.command.role.name;
  if (start.script && !options.json) process.stderr.write('orca: Scripted model (no LLM is used)\n');
  const follower = connectRedis(services.redisService.url);
  const following = new AbortController();
  const onSigint = abortOnInterrupt(services, runId);
  process.on('SIGINT', onSigint);
  // The agent's permission requests: asked here when a person is at the terminal, shown otherwise.
  const asks = options.json ? undefined : terminalAsks(services, runId);
  const branch = start.command.role.workspace === 'branch' ? orcaBranch(runId, taskId) : undefined;
  const ledgerEntry = {
    run_id: runId,
    kind: 'agent' as const,
    prefix: services.keys.prefix,
    repo: root,
    base,
    result_branch: branch,
    ...(share ? { share } : {}),
  };
  const shared = share ? new SharedRun(share, root, runId) : undefined;
  // Says this command is alive, as a run's coordinator does: `orca abort` ends the run itself once it is gone.
  const pulse = await CoordinatorPulse.start(services.redis, services.keys, runId);
  try {
    recordRun(services.home, ledgerEntry);
    await shared?.publish(base);
    const agent = start.command.agent;
    const payload = { ...agentJob(options, start, { runId, taskId, branch, shared }), agent };
    // On the board first: a command killed right after the job is queued leaves a run `orca abort` knows.
    await recordTaskState(services, payload, agentJobId(runId, taskId, 1), 'queued');
    await services.queue.add(payload);
    const followed = options.json ? Promise.resolve('0') : followAgent(follower, services.keys, runId, asks, following.signal);
    const result = await waitForAgentJob(services, payload);
    // Pushed by its worker to the shared remote: the branch ends in the user's repository, as in a local run.
    if (shared && result.branch && result.commit) await shared.fetchTask(taskId, result.branch, result.commit);
    following.abort();
    await followed;
    if (memory) for (const filed of await memory.file(result.remembered)) process.stderr.write(`orca: memory: ${describeFiled(filed)}\n`);
    recordRunEnd(services.home, ledgerEntry, result.status);
    await handOver(root, runId, services.home, options.json);
    printResult(result, options.json);
    return result.status === 'completed' ? 0 : result.status === 'aborted' ? 130 : 1;
  } finally {
    await pulse.stop();
    process.off('SIGINT', onSigint);
    asks?.close();
    following.abort();
    follower.disconnect();
    await services.close();
  }
}

/** The role, and every file the agent's settings, hooks and context come from, as of the base commit. */
async function readAgentRole(
  options: AgentCommandOptions,
  { root, base, pluginDirs }: StartRepository,
): Promise<{ role: RoleDefinition; config: TrustedConfig; agent: AgentBackend }> {
  const config = await readRunConfig(root, base);
  for (const problem of config.problems) process.stderr.write(`orca: configuration: ${problem}\n`);
  const { role, warnings } = findRole(root, options.role, { config, pluginDirs });
  for (const warning of warnings) process.stderr.write(`orca: ${warning}\n`);
  return { role, config, agent: await agentOfRole(options, root, base, role) };
}

/** Ctrl-C aborts the run (its agent stops, its worker records how far it got); a second Ctrl-C leaves at once. */
function abortOnInterrupt(services: OrcaServices, runId: string): () => void {
  let interrupted = 0;
  return () => {
    interrupted += 1;
    if (interrupted > 1) process.exit(130);
    process.stderr.write('orca: aborting the run (Ctrl-C again to leave at once)\n');
    void publishAbort(services.redis, services.keys, runId, 'interrupted by the user');
  };
}

function terminalAsks(services: OrcaServices, runId: string): TerminalAsks {
  return new TerminalAsks({
    redis: services.redis,
    keys: services.keys,
    runId,
    write: (line) => process.stderr.write(`${line}\n`),
    interactive: process.stdin.isTTY === true && process.stderr.isTTY === true,
  });
}

/** The agent's job: its role, prompt and model, where its repository is, and the run's options it carries to its worker. */
function agentJob(
  options: AgentCommandOptions,
  { root, base, script, model, pluginDirs, memory, command: { role, config } }: PreStart<{ role: RoleDefinition; config: TrustedConfig }>,
  { runId, taskId, branch, shared }: { runId: string; taskId: string; branch?: string; shared?: SharedRun },
): AgentJobInput {
  const { source: _source, ...scriptContent } = script ?? { source: '' };
  return {
    run_id: runId,
    task_id: taskId,
    role: roleSpec(role),
    prompt: options.prompt,
    repo: shared ? { remote: shared.url } : { path: root },
    base,
    branch,
    model: { ...model, script: script ? scriptContent : undefined },
    stop_event: 'Stop',
    plugin_dirs: pluginDirs,
    asks: { timeout_ms: options.asks.timeoutMs, yes_to: options.yesTo, nobody: options.asks.nobody },
    memory: memory?.forPrompt(options.prompt),
    mcp: options.mcp,
    config,
    sandbox: options.sandbox,
  };
}

/** What runs the agent: `--agent`, else its role file's `agent:`, else orca.json's at the base, else orca's own. */
async function agentOfRole(options: AgentCommandOptions, root: string, base: string, role: RoleDefinition): Promise<AgentBackend> {
  const option = options.agent ? parseAgentOption(options.agent, role.name.toLowerCase()) : { ok: true as const, byRole: {} };
  if (!option.ok) throw new UserError(option.problem);
  const project = await readOrcaProjectConfig(root, base);
  const chosen = agentForRole(role.name, {
    option: option.byRole,
    roleFile: role.agent,
    project: choiceByRole(project.agent),
    defined: project.agents,
  });
  if ('problem' in chosen) throw new UserError(chosen.problem);
  return chosen;
}

/** The agent's events as lines on stderr, as they come, with its permission requests asked or shown. */
function followAgent(follower: Redis, keys: Keys, runId: string, asks: TerminalAsks | undefined, signal: AbortSignal): Promise<string> {
  return followRunEvents(
    follower,
    keys,
    runId,
    (entry) => {
      asks?.onEntry(entry);
      if (entry.source !== 'agent') return;
      const line = eventLine(entry.event as AgentEvent);
      if (line) asks?.print(line);
    },
    signal,
  );
}

/** The agent's branch is the user's now: its worktree lets go of it (handOver.ts). Said on stderr, never hidden. */
async function handOver(repo: string, runId: string, home: OrcaHome, quiet: boolean): Promise<void> {
  try {
    for (const one of await handOverWorktrees(repo, runId, home, () => true)) {
      if (one.changes && !quiet)
        process.stderr.write(
          `orca: kept ${one.dir} for inspection (detached; its uncommitted changes are saved to ${wipRef(runId, one.taskId)} when orca clean removes it)\n`,
        );
    }
  } catch (error) {
    process.stderr.write(
      `orca: the agent ended, but its worktree could not be handed over: ${error instanceof Error ? error.message.trim() : String(error)}\n`,
    );
  }
}

function printResult(result: AgentJobResult, json: boolean): void {
  if (json) {
    const out: Record<string, unknown> = {
      run_id: result.run_id,
      task_id: result.task_id,
      role: result.role,
      agent: result.agent,
      status: result.status,
    };
    out.end_reason = result.end_reason;
    if (result.detail) out.detail = result.detail;
    if (result.commit) {
      out.branch = result.branch;
      out.commit = result.commit;
    }
    out.report = result.report ?? null;
    out.usage = { ...result.usage, cost_usd: result.cost_usd };
    out.usage_reported = result.usage_reported;
    if (result.sandbox) out.sandbox = result.sandbox;
    process.stdout.write(`${JSON.stringify(out)}\n`);
    return;
  }
  const lines = [`${result.role} ${result.status}: ${result.end_reason} (${result.detail})`];
  if (result.commit) lines.push(`branch ${result.branch} at ${result.commit}`);
  if (result.report) lines.push(`report: ${JSON.stringify(result.report, null, 2)}`);
  const tokens = result.usage.input_tokens + result.usage.cache_read_tokens + result.usage.cache_creation_tokens;
  if (!result.usage_reported) lines.push(`tokens and cost: not reported by the ${result.agent} agent`);
  else
    lines.push(
      `tokens: ${tokens} in, ${result.usage.output_tokens} out; cost $${result.cost_usd.toFixed(4)}${result.scripted ? ' (Scripted model, no LLM)' : ''}`,
    );
  process.stdout.write(`${lines.join('\n')}\n`);
}
