import { existsSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Job, UnrecoverableError } from 'bullmq';
import type { Redis } from 'ioredis';
import { readTrustedConfig } from '../shared/context/config/readTrustedConfig.js';
import { settingsFromConfig } from '../shared/context/config/trustedSettings.js';
import { type GitSnapshot, readFreshWorktreeSnapshot } from '../shared/context/prompt/gitSnapshot.js';
import { describeZodError } from '../shared/core/boundary/zodIssues.js';
import type { AgentEvent } from '../shared/core/events/agentEvent.js';
import type { WorktreePool } from '../shared/core/git/worktreePool.js';
import { orcaOwnedPaths } from '../shared/core/git/worktreeStartState.js';
import type { AgentResult } from '../shared/core/loop/query.js';
import type { Model } from '../shared/core/model/model.js';
import { ModelError } from '../shared/core/model/modelError.js';
import { emptyUsage } from '../shared/core/model/usage.js';
import type { OrcaHome } from '../shared/core/runtime/orcaHome.js';
import { type SandboxKind, type SandboxMode, strictestSandboxMode } from '../shared/core/runtime/sandboxMode.js';
import { settled } from '../shared/core/runtime/settled.js';
import type { Harness } from '../shared/harness/harness.js';
import { type PortLeaser, portLeaseOwner } from '../shared/infra/ports/portLease.js';
import { type AgentJob, type AgentJobResult, AgentJobSchema } from '../shared/infra/queue/agentJob.js';
import { isAborted } from '../shared/infra/queue/runAbort.js';
import type { TrustedConfig } from '../shared/infra/queue/trustedConfig.js';
import type { Keys } from '../shared/infra/redis/keys.js';
import { commandsFromLedger } from '../shared/infra/verify/gates/claims.js';
import type { GateReport } from '../shared/infra/verify/gates/workerGates.js';
import { type HookContext, transcriptPathFor } from '../shared/policy/hooks/hookContext.js';
import { hooksFromSettings } from '../shared/policy/hooks/hookSettings.js';
import type { HooksConfig } from '../shared/policy/hooks/hooksConfig.js';
import { branchChanges, commitOwned, refusalsOf, refusalsText } from '../shared/policy/permissions/ownedCommit.js';
import { OwnedPaths } from '../shared/policy/permissions/ownedPaths.js';
import { SandboxRequiredError, sandboxAvailability } from '../shared/policy/permissions/sandbox.js';
import { type CheckoutState, checkoutState } from '../shared/policy/permissions/worktreeWatch.js';
import { userClaudeDir } from '../shared/policy/settings/loadSettings.js';
import { buildJobHarness, judgeReport, lastRefusedReport } from './jobHarness.js';
import { buildModel } from './jobModel.js';
import { setUpWorktree } from './jobSetup.js';
import { ProgressReporter } from './progressReporter.js';
import { guardedStartFileChanges } from './startFileGuard.js';
import type { JobWorkspace } from './workspace/jobWorkspace.js';
import { prepareWorkspace } from './workspace/prepareWorkspace.js';
import { releaseWorkspace } from './workspace/releaseWorkspace.js';

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

/** Parses a job's payload; a bad one fails the job for good, naming the field. */
export function parseJob(data: unknown): AgentJob {
  const parsed = AgentJobSchema.safeParse(data);
  if (!parsed.success) throw new UnrecoverableError(describeZodError(parsed.error, 'agent job payload'));
  return parsed.data;
}

/**
 * One agent job, start to finish: ports leased, workspace prepared at the named base, the
 * parent's file state rebased onto it, the agent run with the whole harness, its work committed
 * on the task branch, everything released. The result says how it went; a failed agent is a
 * result, not a thrown error (the coordinator decides what follows).
 */
export async function runAgentJob(bullJob: Job, signal: AbortSignal, deps: JobDeps): Promise<AgentJobResult> {
  const job = parseJob(bullJob.data);
  const attempt = String(bullJob.attemptsStarted ?? 1);
  const sessionDir = deps.home.session(job.run_id, job.task_id, `${bullJob.id ?? 'job'}-${attempt}`.replace(/[^A-Za-z0-9._-]/g, '_'));
  const resultOf = jobResult(job, sessionDir);

  if (await isAborted(deps.redis, deps.keys, job.run_id))
    return resultOf({ status: 'aborted', end_reason: 'aborted', detail: 'the run was aborted before this job started' });
  // Refused before anything is made for it: no ports, no worktree, no hook run.
  const sandbox = jobSandbox(job, deps.sandbox);
  if (sandbox.refusal) return resultOf({ end_reason: 'sandbox', detail: `worker ${os.hostname()}:${process.pid}: ${sandbox.refusal}` });

  // A job naming a folder this host does not have fails before anything is taken (workers elsewhere need --share).
  if (job.repo.path && !existsSync(job.repo.path)) throw new UnrecoverableError(unseenRepo(job.repo.path));
  const progress = new ProgressReporter(bullJob, deps.redis, deps.keys, job);
  const hookContext = workspaceHookContext(job, sessionDir, progress);
  let lease: Awaited<ReturnType<PortLeaser['lease']>> | undefined;
  let repoHooks: ReturnType<typeof hooksFromSettings> | undefined;
  let workspace: JobWorkspace | undefined;
  let harness: Harness | undefined;
  let outcome = { committed: false, keep: false, completed: false, job };
  // Everything that takes something (the lease, the workspace) is inside the try: every way out releases it.
  try {
    // The lease and the configuration are independent: asked at once, settled together, so a
    // lease taken while the configuration failed is in `lease` for finally to give back.
    const [, config] = await settled([
      deps.leaser.lease(job.ports, portLeaseOwner(job.run_id, `${job.task_id}|${attempt}`)).then((taken) => {
        lease = taken;
      }),
      // Hooks and settings come only from the trusted configuration (the run's base commit and the
      // user's folders), never from a tree an agent wrote. A settings file that cannot be read fails
      // the job here, and the lease goes with it (finally).
      job.config ?? configOfJob(job, deps),
    ]);
    const ports = lease!.ports;
    repoHooks = hooksFromSettings(settingsFromConfig(job.repo.path ?? deps.home.root, config).sources);
    const hooks = repoHooks;
    // The user's checkout as the agent's watch starts from: it does not depend on the worktree, so
    // it is looked at while the worktree is made (when nothing of the repository's runs before the agent).
    const checkoutAtStart = earlyCheckoutState(job, hooks);
    checkoutAtStart?.state.catch(() => undefined);
    workspace = await prepareWorkspace(
      job,
      deps.home,
      { config: hooks, context: (dir) => hookContext(dir, signal) },
      { readOnlyOnDisk: sandbox.kind === 'none', ports, pool: deps.pool },
    );
    if (workspace.rebuilt) {
      await progress.agentEvent({
        type: 'notice',
        level: 'warn',
        message: `the read-only view ${workspace.dir} was rebuilt before this agent read it: ${workspace.rebuilt}`,
        at: Date.now(),
      });
    }
    // Asked now, read when the harness is built: it overlaps the steps in between. A job that
    // ends before that (a model it cannot make) has no use for it, nor for its failure.
    const gitAtStart = freshSnapshot(workspace, job.base);
    gitAtStart.catch(() => undefined);
    await announceWorkspace(progress, workspace, ports, deps.slot, sandbox.kind);
    // orca.json's setup, before any model call: a task whose worktree cannot be made ready fails here, cheaply.
    const setup = await setUpWorktree({
      job,
      workspace,
      ports,
      sessionDir,
      signal,
      progress,
      sandboxMode: sandbox.mode,
      config,
    });
    if (!setup.ok) {
      // The worktree stays, as a failed agent's does: the setup's log and what it left are there to look at.
      outcome = { ...outcome, keep: true };
      return resultOf({ end_reason: 'setup_failed', detail: setup.detail ?? 'the setup failed', worktree: workspace.dir });
    }

    const model = buildModel(job, deps);
    if (model instanceof ModelError) return resultOf({ detail: model.message, worktree: workspace.dir });
    const session = await buildJobHarness({
      job,
      redis: deps.redis,
      keys: deps.keys,
      workspace,
      ports,
      model,
      sessionDir,
      attempt,
      signal,
      userClaudeDir: deps.userClaudeDir,
      config,
      gitAtStart,
      checkoutAtStart: checkoutAtStart?.checkout === workspace.repo ? checkoutAtStart.state : undefined,
      progress,
      sandboxMode: sandbox.mode,
    });
    harness = session.harness;
    const result = await session.harness.run(job.prompt, (event) => progress.agentEvent(event));
    const tampered = guardedStartFileChanges(workspace);
    const status = tampered ? 'failed' : statusOf(result, signal);
    // A failed agent whose last Report was refused hands back that report's gates: they say why.
    const gates =
      status === 'completed' ? await judgeReport(session, result.report) : status === 'failed' ? lastRefusedReport(session) : undefined;
    const committed = status === 'completed' ? await commitWork(workspace, job, result) : {};
    if (committed.refused) {
      // The commit's own check refused the branch: nothing of it is handed back to merge.
      outcome = { committed: false, keep: true, completed: false, job };
      const ran = ranResult({ workspace, model, harness: session.harness, result, status: 'failed', gates });
      return resultOf({ ...ran, end_reason: 'refused_changes', detail: committed.refused });
    }
    const commit = committed.commit;
    outcome = { committed: commit !== undefined, keep: keepsChanges(status, deps), completed: status === 'completed', job };
    const ran = ranResult({ workspace, model, harness: session.harness, result, status, gates, commit, files: committed.files });
    return resultOf(tampered ? { ...ran, end_reason: 'guarded_change', detail: tampered } : ran);
  } finally {
    // Its MCP servers are given back whatever happened (the harness does on its own when `run` ends).
    await harness?.close();
    await progress.flush();
    await lease?.release();
    if (workspace && repoHooks) {
      // Its hooks run even after an abort: they get a signal of their own, never aborted.
      await releaseWorkspace(workspace, outcome, { config: repoHooks, context: (dir) => hookContext(dir, new AbortController().signal) });
    }
  }
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

/**
 * The job's sandbox on this worker: the stricter of the job's mode and the worker's, what its
 * commands will run in, and, under `required` without a working bwrap, why the job is refused.
 */
function jobSandbox(job: AgentJob, workerMode: SandboxMode = 'auto'): { mode: SandboxMode; kind: SandboxKind; refusal?: string } {
  const mode = strictestSandboxMode(job.sandbox, workerMode);
  if (mode === 'off' || (mode === 'auto' && !job.role.sandbox)) return { mode, kind: 'none' };
  const found = sandboxAvailability();
  if (found.bwrap !== undefined) return { mode, kind: 'bwrap' };
  return { mode, kind: 'none', ...(mode === 'required' ? { refusal: new SandboxRequiredError(found.problem).message } : {}) };
}

/**
 * A job that names a repository by a path this host does not have (a worker on another machine,
 * or in a container): it can do nothing, so it fails at once, saying how runs reach such workers.
 */
function unseenRepo(repo: string): string {
  return `the job names the repository ${repo}, which this host (${os.hostname()}) cannot see: run with --share <git-url> (or ORCA_SHARE) so workers on other hosts get it over git`;
}

/** A result with every field the job has not reached yet at its empty value: a failed job by default. */
function jobResult(job: AgentJob, sessionDir: string): (extra: Partial<AgentJobResult>) => AgentJobResult {
  return (extra) => ({
    run_id: job.run_id,
    task_id: job.task_id,
    role: job.role.name,
    status: 'failed',
    end_reason: 'error',
    detail: '',
    base: job.base,
    usage: emptyUsage(),
    cost_usd: 0,
    turns: 0,
    transcript: transcriptPathFor(sessionDir),
    host: os.hostname(),
    pid: process.pid,
    commands: [],
    files_read: [],
    files_changed: [],
    scripted: job.model.script !== undefined,
    remembered: [],
    ...extra,
  });
}

/** Hooks fired around the workspace (WorktreeCreate/Remove) belong to the repository, not to a session. */
function workspaceHookContext(
  job: AgentJob,
  sessionDir: string,
  progress: ProgressReporter,
): (dir: string, signal: AbortSignal) => HookContext {
  return (dir, signal) => ({
    projectDir: dir,
    cwd: dir,
    sessionId: `${job.run_id}.${job.task_id}`,
    transcriptPath: transcriptPathFor(sessionDir),
    mode: job.role.mode,
    role: job.role.name,
    env: { ORCA_RUN_ID: job.run_id, ORCA_TASK_ID: job.task_id },
    signal,
    emit: (event) => progress.agentEvent({ ...event, at: Date.now() } as AgentEvent),
  });
}

async function announceWorkspace(
  progress: ProgressReporter,
  workspace: JobWorkspace,
  ports: number[],
  slot: number | undefined,
  sandbox: SandboxKind,
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
    ...(workspace.pooled ? { pooled: true } : {}),
  });
}

/**
 * A completed agent's work, committed on the task branch: exactly its owned changes (anything
 * else stays in the worktree, out of the commit). The task's whole change is then checked once
 * more (defence in depth): a branch that touches a guarded path or one the task does not own is
 * refused, never handed back to merge.
 */
async function commitWork(
  workspace: JobWorkspace,
  job: AgentJob,
  result: AgentResult,
): Promise<{ commit?: string; refused?: string; files?: string[] }> {
  if (workspace.kind !== 'branch' || !workspace.branch) return {};
  const owned = new OwnedPaths(job.owned_paths);
  const made = await commitOwned(workspace.dir, commitMessage(job, result), {
    start: workspace.start,
    owned,
    // Nothing orca put in the worktree is the task's change (worktreeStartState.ts).
    linked: orcaOwnedPaths(workspace.dir),
    branch: workspace.branch,
  });
  // An attempt that resumed a dead one's commits and added nothing still hands those back.
  const commit = made.commit ?? (workspace.start !== job.base ? workspace.start : undefined);
  if (!commit) return {};
  // One diff for both: the check, and the files the result names.
  const files = await branchChanges(workspace.dir, job.base, commit);
  const refusals = refusalsOf(files, owned);
  if (refusals.length > 0) return { refused: `the task's commit ${commit.slice(0, 12)} was refused: it touches ${refusalsText(refusals)}` };
  return { commit, files };
}

/**
 * A failed or aborted agent's changes stay in its worktree for inspection, uncommitted; not
 * when the job is being handed to another worker, which starts over from the branch (the
 * changes are saved under the task's work-in-progress ref before the worktree goes).
 */
function keepsChanges(status: AgentJobResult['status'], deps: JobDeps): boolean {
  return status !== 'completed' && !(status === 'aborted' && deps.handingBack?.() === true);
}

interface RanJob {
  workspace: JobWorkspace;
  model: Model;
  harness: Harness;
  result: AgentResult;
  status: AgentJobResult['status'];
  gates?: GateReport;
  commit?: string;
  /** The files of the task's whole change (base..commit). */
  files?: string[];
}

/** What a job whose agent ran hands back: how it ended, what it read, ran and changed, and the gates' verdict. */
function ranResult({ workspace, model, harness, result, status, gates, commit, files }: RanJob): Partial<AgentJobResult> {
  return {
    status,
    end_reason: result.reason,
    detail: result.detail,
    report: result.report,
    branch: commit ? workspace.branch : undefined,
    commit,
    worktree: workspace.dir,
    usage: result.usage,
    cost_usd: result.costUsd,
    turns: result.turns,
    commands: commandsFromLedger(harness.session.ledger.all()),
    files_read: harness.session.fileState
      .all()
      .filter((entry) => entry.origin === 'read' && workspace.dir && entry.path.startsWith(workspace.dir + path.sep))
      .map((entry) => ({
        path: path.relative(workspace.dir, entry.path).split(path.sep).join('/'),
        hash: entry.hash,
        partial: entry.isPartialView,
        ...(entry.isPartialView ? { seen: entry.seen ?? [] } : {}),
      })),
    // The task's whole change, a dead attempt's commits included: what a merge of the branch brings.
    files_changed: commit ? (files ?? []) : [],
    scripted: model.scripted,
    sandbox: harness.sandboxed ? 'bwrap' : 'none',
    remembered: harness.session.toolContext.services.memory?.remembered ?? [],
    ...(gates
      ? {
          gates: {
            ok: gates.ok,
            gates: gates.gates,
            checks: gates.checks.map(({ evidence, ...check }) => ({ ...check, ...(evidence ? { log: evidence.log } : {}) })),
            flags: gates.flags,
          },
        }
      : {}),
  };
}

/**
 * The user's checkout looked at for the watch ahead of the worktree, for a job that writes in a
 * local repository and runs nothing of the repository's before its agent (no WorktreeCreate hook,
 * no orca.json setup: they may change the checkout, and what they change is no agent's). Undefined
 * otherwise: the watch looks when it opens.
 */
function earlyCheckoutState(job: AgentJob, hooks: HooksConfig): { checkout: string; state: Promise<CheckoutState> } | undefined {
  if (!job.repo.path || job.role.workspace === 'view') return undefined;
  if ((hooks.byEvent.WorktreeCreate ?? []).length > 0 || job.project === undefined || job.project.setup.length > 0) return undefined;
  const checkout = realpathSync(job.repo.path);
  return { checkout, state: checkoutState(checkout) };
}

/**
 * A task worktree checked out just now at the base is known to be clean (but for what orca linked
 * in): its snapshot needs no status of the whole tree before the agent's first request.
 */
async function freshSnapshot(workspace: JobWorkspace, base: string): Promise<GitSnapshot | undefined> {
  if (workspace.kind !== 'branch' || !workspace.branch || workspace.madeByHook || workspace.start !== base) return undefined;
  return readFreshWorktreeSnapshot(workspace.dir, workspace.branch, workspace.start, workspace.linked);
}

function statusOf(result: AgentResult, signal: AbortSignal): AgentJobResult['status'] {
  if (result.reason === 'aborted' || signal.aborted) return 'aborted';
  return result.reason === 'report' ? 'completed' : 'failed';
}

function commitMessage(job: AgentJob, result: AgentResult): string {
  const summary = (result.report as { summary?: unknown } | undefined)?.summary;
  const title = typeof summary === 'string' ? summary.split('\n')[0]!.slice(0, 72) : `${job.role.name} ${job.task_id}`;
  return `${title}\n\norca run ${job.run_id}, task ${job.task_id} (${job.role.name})`;
}
