import os from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { claimsReader, failureAdmission, outputSchema, WorkerOutputSchema } from '../roles/outputs.js';
import { settingsFromConfig } from '../shared/context/config/trustedSettings.js';
import type { GitSnapshot } from '../shared/context/prompt/gitSnapshot.js';
import { isExternalAgent } from '../shared/core/agents/agentBackend.js';
import { rebaseFileState } from '../shared/core/files/fileStateTransfer.js';
import type { ReadFileState } from '../shared/core/files/readFileState.js';
import { commonGitDir } from '../shared/core/git/repoLock.js';
import { orcaOwnedPaths } from '../shared/core/git/worktreeStartState.js';
import type { Model } from '../shared/core/model/model.js';
import type { SandboxMode } from '../shared/core/runtime/sandboxMode.js';
import { settled } from '../shared/core/runtime/settled.js';
import type { StartTrace } from '../shared/core/runtime/startTrace.js';
import type { SessionServices } from '../shared/core/tool/tool.js';
import { Harness } from '../shared/harness/harness.js';
import type { HarnessOptions } from '../shared/harness/harnessOptions.js';
import type { AgentJob } from '../shared/infra/queue/agentJob.js';
import { publishAbort } from '../shared/infra/queue/runAbort.js';
import { projectConfigFile, type TrustedConfig } from '../shared/infra/queue/trustedConfig.js';
import type { Keys } from '../shared/infra/redis/keys.js';
import { RedisTaskStore } from '../shared/infra/tasks/redisTaskStore.js';
import { createVerificationNudge } from '../shared/infra/tasks/verificationNudge.js';
import { CheckRecorder } from '../shared/infra/verify/checks/checkRecorder.js';
import { createReportGate, gateSession, type ReportGateOptions } from '../shared/infra/verify/checks/reportGate.js';
import type { GateReport } from '../shared/infra/verify/gates/workerGates.js';
import { anyHook } from '../shared/policy/hooks/hooksConfig.js';
import { CheckoutBaseline } from '../shared/policy/permissions/checkoutState.js';
import { HostFilesWatch } from '../shared/policy/permissions/hostFilesWatch.js';
import { OwnedPaths } from '../shared/policy/permissions/ownedPaths.js';
import { commandsConfined, type OwnedPathsGuard, ownedPathsGuard } from '../shared/policy/permissions/ownedPathsSlots.js';
import { reportLookHolds } from '../shared/policy/permissions/reportLook.js';
import { sandboxAvailability } from '../shared/policy/permissions/sandbox.js';
import { WorktreeWatch } from '../shared/policy/permissions/worktreeWatch.js';
import { userClaudeDir } from '../shared/policy/settings/loadSettings.js';
import { toolsNamed } from '../shared/tools/catalog.js';
import { createDiagnosticsReminder } from '../shared/tools/lsp/diagnosticsReminder.js';
import { startAgentMcp } from '../shared/tools/mcp/agentMcp.js';
import type { McpServers } from '../shared/tools/mcp/mcpServers.js';
import type { ProgressReporter } from './progressReporter.js';
import { RunAskPrompter } from './runAskPrompter.js';
import { type JobWorkspace, treeAtStart } from './workspace/jobWorkspace.js';

/** A job's harness, and the gate on its Report when its role's output makes claims. */
export interface JobHarness {
  harness: Harness;
  reportGate?: { options: Omit<ReportGateOptions, 'maxRefusals' | 'admitsFailure'>; gate: ReturnType<typeof createReportGate> };
  /** The changes the Report's look found, where nothing can have written the worktree since (reportLook.ts); else undefined. */
  reportChanges(): readonly string[] | undefined;
}

export interface JobHarnessInput {
  job: AgentJob;
  redis: Redis;
  keys: Keys;
  workspace: JobWorkspace;
  ports: number[];
  model: Model;
  sessionDir: string;
  /** This attempt of the job (BullMQ's count), part of the session id. */
  attempt: string;
  signal: AbortSignal;
  /** Stops this job at once with the reason (the run's abort is published too, for its other jobs). */
  stopJob?: (reason: string) => void;
  userClaudeDir?: string;
  /** The run's trusted configuration: the agent's settings, hooks, rules, skills and instructions. */
  config: TrustedConfig;
  /** The repository's state for the agent's context, asked for earlier. */
  gitAtStart: Promise<GitSnapshot | undefined>;
  /** The baseline of the user's checkout for the watch, when the job made it earlier (jobStart.ts, checkoutBaselineFor). */
  checkoutBaseline?: CheckoutBaseline;
  /** The job's event writer: its permission requests go out on the run's stream through it. */
  progress: ProgressReporter;
  /** The job's sandbox mode on this worker (the stricter of the job's and the worker's). */
  sandboxMode: SandboxMode;
  /** This worker's ORCA_HOME: its memory, run records and secrets are watched for changes agent code makes. */
  orcaHome?: string;
  /** The job's start steps timed (ORCA_START_TRACE). */
  trace?: StartTrace;
}

/**
 * The harness one job's agent runs in: the parent's file state rebased onto the workspace, and
 * the host's own record of the agent's checks, its task list, and the gate on its Report.
 */
export async function buildJobHarness(input: JobHarnessInput): Promise<JobHarness> {
  const { job, workspace } = input;
  const { state, dropped } = rebaseFileState(job.file_state, workspace.dir);
  // Taken before anything of the session that could write the checkout runs: each waits for it.
  const checkout =
    workspace.kind === 'view' || workspace.remote ? undefined : (input.checkoutBaseline ?? new CheckoutBaseline(workspace.repo));
  // The watch is made beside the harness's other parts, after the gate that reads its last look.
  const watched: { guard?: OwnedPathsGuard } = {};
  // Whether nothing but the agent's calls can write (reportLook.ts): known once the harness is built.
  let quiet: () => boolean = () => false;
  const checks = jobChecks(input, {
    watchStatus: () => watched.guard?.lastStatus(),
    unchangedLook: () => (quiet() ? watched.guard?.lastStatus() : undefined),
  });
  let mcp: McpServers | undefined;
  let harness: Harness;
  try {
    // Independent of each other, asked at once and settled together: MCP servers started while
    // the watch failed are in `mcp`, closed below.
    const [owned, , gitDir, gitAtStart] = await settled([
      ownedGuard(input, checkout).finally(() => input.trace?.mark('watch_opened')),
      startJobMcp(input, checkout).then((started) => {
        mcp = started;
        input.trace?.mark('mcp_started');
      }),
      commonGitDir(workspace.repo),
      input.gitAtStart.finally(() => input.trace?.mark('git_snapshot')),
    ]);
    watched.guard = owned;
    input.trace?.mark('harness_parts');
    harness = new Harness(jobHarnessOptions(input, { checks, owned, mcp, gitDir, gitAtStart, fileState: state }));
    owned?.confineCommands(confinedCommands(input, harness));
    // The servers run for the session are those started with it: looked at now, as confinedCommands does.
    quiet = quietBesideCalls(input, harness, harness.mcp.running.length > 0);
    owned?.quietBesideCalls(quiet);
    // A hook may run before the first call (SessionStart, UserPromptSubmit): the checkout's baseline
    // first. Else it is begun now, beside the agent's first request, and the first call waits for it.
    if (anyHook(harness.hooks)) await owned?.checkoutReady();
    else checkout?.taken();
  } catch (error) {
    // Nothing of the agent's may outlive it, not even when its harness could not be built.
    await mcp?.close();
    throw error;
  }
  if (dropped.length > 0) {
    harness.session.pending.push({
      type: 'notice',
      level: 'info',
      message: `inherited file state dropped for files that differ here: ${dropped.join(', ')}`,
    });
  }
  // Asked once the session ended: a language server starts with the first file of its language.
  const reportChanges = () => (quiet() ? watched.guard?.reportChanges() : undefined);
  return { harness, reportGate: checks.reportGate, reportChanges };
}

/** The host's own record of a job's checks, its task list, and the gate on its Report when its role's output makes claims. */
interface JobChecks {
  services: SessionServices;
  checkRecorder: CheckRecorder;
  reportGate?: JobHarness['reportGate'];
}

function jobChecks(
  { job, redis, keys, ports }: JobHarnessInput,
  looks: { watchStatus: () => string | undefined; unchangedLook: () => string | undefined },
): JobChecks {
  const { watchStatus, unchangedLook } = looks;
  const services: SessionServices = { taskList: { store: new RedisTaskStore(redis, keys, job.run_id, job.task_id) } };
  // A Worker must have run its task's checks, whatever they look like: they are recorded as evidence too.
  const required = job.role.output === 'worker' ? job.checks : undefined;
  const checkRecorder = new CheckRecorder({ alsoRecord: required, unchangedLook }).attachTo(services);
  const claimsOf = claimsReader(job.role.output);
  const gateOptions = claimsOf
    ? { claimsOf, base: job.base, leasedPorts: ports, who: `${job.role.name} ${job.task_id}`, required }
    : undefined;
  // The gate's own stop reads the watch's look taken just before it (the owned-paths stop check comes first).
  const reportGate = gateOptions
    ? { options: gateOptions, gate: createReportGate({ ...gateOptions, admitsFailure: failureAdmission(job.role.output), watchStatus }) }
    : undefined;
  return { services, checkRecorder, reportGate };
}

/**
 * A built-in role gets the MCP servers the run names (--mcp), else the project servers the user
 * approved, unless a slash command limits its tools; a custom role those of its file.
 */
function startJobMcp(
  { job, workspace, userClaudeDir, config }: JobHarnessInput,
  checkout: CheckoutBaseline | undefined,
): Promise<McpServers> {
  const builtin = job.mcp ?? (job.tool_limit ? [] : 'approved');
  return startAgentMcp({
    wanted: job.role.source === 'builtin' ? builtin : job.role.mcpServers,
    roleSource: job.role.source,
    projectRoot: workspace.dir,
    userClaudeDir,
    // From the run's base commit, never from the tree the agent works in.
    trusted: { mcpJson: projectConfigFile(config, '.mcp.json'), settings: settingsFromConfig(workspace.dir, config) },
    // A server runs beside the agent's calls, from its start: the checkout's baseline is taken first.
    beforeServersStart: async () => {
      await Promise.all([checkout?.taken(), treeAtStart(workspace)]);
    },
  });
}

interface JobHarnessParts {
  checks: JobChecks;
  owned?: OwnedPathsGuard;
  mcp?: McpServers;
  gitDir: string;
  gitAtStart?: GitSnapshot;
  fileState: ReadFileState;
}

/** The job's agent as the harness runs it: its role, model and tools, its workspace and sandbox, and the job's guards and gates around it. */
function jobHarnessOptions(input: JobHarnessInput, { checks, owned, mcp, gitDir, gitAtStart, fileState }: JobHarnessParts): HarnessOptions {
  const { job, workspace } = input;
  const { checkRecorder, reportGate } = checks;
  return {
    mcp,
    services: checks.services,
    wrapSlots: (slots) => (owned ? owned.wrap(checkRecorder.wrap(slots)) : checkRecorder.wrap(slots)),
    stopChecks: [
      ...(owned ? [owned.stopCheck] : []),
      ...(reportGate ? [reportGate.gate] : []),
      ...(job.role.output === 'worker'
        ? [createVerificationNudge(), createDiagnosticsReminder({ claimsSuccess: workerClaimsSuccess })]
        : []),
    ],
    role: job.role,
    sandboxMode: input.sandboxMode,
    tools: toolsNamed(job.role.tools),
    outputSchema: outputSchema(job.role.output),
    model: input.model,
    workspaceRoot: workspace.dir,
    workspaceWritable: workspace.kind !== 'view',
    sandboxReadable: [gitDir, ...workspace.linked.map((name) => path.join(workspace.repo, name))],
    sessionDir: input.sessionDir,
    shellEnv: jobShellEnv(job, input.ports),
    fileState,
    signal: input.signal,
    prompter: new RunAskPrompter({ redis: input.redis, keys: input.keys, job, progress: input.progress }),
    stopEvent: job.stop_event,
    pluginDirs: job.plugin_dirs,
    effort: job.role.effort ?? job.model.effort,
    requiredChecks: job.checks,
    userClaudeDir: input.userClaudeDir,
    sessionId: `${job.run_id}.${job.task_id}.${input.attempt}`,
    agentId: `${job.run_id}/${job.task_id}`,
    transcriptContext: { run: job.run_id, task: job.task_id, role: job.role.name },
    gitAtStart,
    ...(owned ? { lastWorktreeLook: () => owned.lastStatus() } : {}),
    memory: job.memory ? { ...job.memory, source: `run ${job.run_id} task ${job.task_id}` } : undefined,
    toolLimit: job.tool_limit,
    config: { files: input.config, folder: path.join(input.sessionDir, 'config') },
  };
}

/** The environment of the agent's commands and hooks: its ports, the run, task and role, and the job's own variables. */
export function jobShellEnv(job: AgentJob, ports: number[]): Record<string, string> {
  return {
    PORT: String(ports[0] ?? ''),
    ORCA_PORTS: ports.join(','),
    ORCA_RUN_ID: job.run_id,
    ORCA_TASK_ID: job.task_id,
    ORCA_ROLE: job.role.name,
    ...job.env,
  };
}

/**
 * The host's watch on what a writing agent changes (owned and guarded paths, the git folders, the
 * user's checkout): for a task worktree and a scratch one (which owns every path but the guarded
 * ones), not for a read-only view.
 */
async function ownedGuard(input: JobHarnessInput, checkout: CheckoutBaseline | undefined): Promise<OwnedPathsGuard | undefined> {
  const { job, workspace } = input;
  if (workspace.kind === 'view') return undefined;
  const owned = new OwnedPaths(workspace.kind === 'branch' ? job.owned_paths : undefined);
  const watch = await WorktreeWatch.open({
    root: workspace.dir,
    start: workspace.start,
    owned,
    // What orca put there (links, copied files, .env.orca, what the setup made) is the start state, not a change.
    linked: orcaOwnedPaths(workspace.dir),
    // The pool's check of the whole tree holds while nothing but orca's start files was written: no setup ran.
    cleanAtStart: workspace.checkedClean === true && workspace.config.setup.length === 0,
    // Until it settles, nothing the watch guards runs (ready()): the check is on no call's way but the first's.
    startCheck: workspace.startCheck ? () => treeAtStart(workspace) : undefined,
    checkout: checkout?.checkout,
    checkoutBaseline: checkout,
    // Not on the way to the agent's first request: whatever could write the checkout waits for it (see above).
    checkoutBaselineWait: 'ready',
    hostFiles: HostFilesWatch.open({
      home: os.homedir(),
      userClaudeDir: input.userClaudeDir ?? userClaudeDir(),
      orcaHome: input.orcaHome,
      xdgConfigHome: process.env.XDG_CONFIG_HOME || undefined,
    }),
  });
  // A changed Claude Code or git configuration stops the whole run, as `orca abort` would, saying why.
  const stopRun = (reason: string) => {
    input.stopJob?.(reason);
    void publishAbort(input.redis, input.keys, job.run_id, reason);
  };
  return ownedPathsGuard(owned, watch, workspace.start, stopRun);
}

/** Whether the job's commands cannot write the user's checkout (ownedPathsSlots.ts, commandsConfined): the facts of its session. */
function confinedCommands({ job, workspace, sandboxMode }: JobHarnessInput, harness: Harness): boolean {
  const hooked = anyHook(harness.hooks);
  return commandsConfined({
    sandboxed: harness.sandboxed && harness.commandWritable !== undefined,
    // What the session's sandbox itself makes writable, as its policy says (the worktree and its private /tmp).
    writable: harness.commandWritable ?? [],
    checkout: workspace.remote ? undefined : workspace.repo,
    hostHooks: hooked && sandboxMode !== 'required',
    mcpServers: harness.mcp.running.length > 0,
    externalAgent: isExternalAgent(job.agent),
  });
}

/**
 * Whether nothing but the agent's own calls can write (reportLook.ts), asked as the session goes:
 * its sandbox, hooks and MCP servers are fixed when it starts (read once), while a language server
 * starts with the first file of its language.
 */
function quietBesideCalls({ job }: JobHarnessInput, harness: Harness, mcpServers: boolean): () => boolean {
  const fixed = {
    pidNamespace: harness.sandboxed && harness.commandWritable !== undefined && sandboxAvailability().kind === 'bwrap',
    hooks: anyHook(harness.hooks),
    mcpServers,
    externalAgent: isExternalAgent(job.agent),
  };
  return () => reportLookHolds({ ...fixed, languageServers: harness.lsp.anyStarted });
}

/** The gates on the agent's last Report, when one was judged and refused and the agent then ended without another. */
export function lastRefusedReport({ reportGate }: JobHarness): GateReport | undefined {
  return reportGate?.gate.last();
}

/** A worker's Report claims the work is done when it leaves nothing unresolved. */
function workerClaimsSuccess(report: unknown): boolean {
  const parsed = WorkerOutputSchema.safeParse(report);
  return parsed.success && parsed.data.unresolved.length === 0;
}

/**
 * The final word on the Report's claims, on the tree as the agent left it (before the commit).
 * The report gate gave it on the final Report already, and nothing has run since unless a
 * SessionEnd hook did: only then is it judged again (each judgement is several git processes).
 */
export async function judgeReport({ harness, reportGate }: JobHarness, report: unknown): Promise<GateReport | undefined> {
  if (!reportGate) return undefined;
  const judged = (harness.hooks.byEvent.SessionEnd ?? []).length === 0 ? reportGate.gate.last() : undefined;
  return judged ?? (await gateSession(harness.session, reportGate.options, report));
}
