import { existsSync } from 'node:fs';
import os from 'node:os';
import { type Job, UnrecoverableError } from 'bullmq';
import { backendName, isExternalAgent } from '../shared/core/agents/agentBackend.js';
import { describeZodError } from '../shared/core/boundary/zodIssues.js';
import type { AgentEvent } from '../shared/core/events/agentEvent.js';
import type { Model } from '../shared/core/model/model.js';
import { ModelError } from '../shared/core/model/modelError.js';
import { StartTrace } from '../shared/core/runtime/startTrace.js';
import { type AgentJob, type AgentJobResult, AgentJobSchema } from '../shared/infra/queue/agentJob.js';
import { isAborted } from '../shared/infra/queue/runAbort.js';
import { type HookContext, transcriptPathFor } from '../shared/policy/hooks/hookContext.js';
import { startJobAgent } from './agents/jobAgent.js';
import { commitWork } from './jobCommit.js';
import { buildJobHarness, type JobHarness, judgeReport, lastRefusedReport } from './jobHarness.js';
import { buildModel } from './jobModel.js';
import { jobResult, ranResult, statusOf } from './jobResult.js';
import type { EndSteps, HeldByJob, JobDeps, JobRun } from './jobRun.js';
import { jobSandbox } from './jobSandbox.js';
import { setUpWorktree } from './jobSetup.js';
import { announceWorkspace, checkoutBaselineFor, freshSnapshot, openWorkspace, startTogether } from './jobStart.js';
import { ProgressReporter } from './progressReporter.js';
import { guardedStartFileChanges } from './startFileGuard.js';
import { type JobWorkspace, TreeNotAtStartError, treeAtStart } from './workspace/jobWorkspace.js';
import { releaseWorkspace } from './workspace/releaseWorkspace.js';

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
export async function runAgentJob(bullJob: Job, outer: AbortSignal, deps: JobDeps): Promise<AgentJobResult> {
  // The job's own signal: the worker's (a run's abort, a shutdown), or the job itself stopping at
  // once when its watch finds the user's configuration changed, before the run's abort comes round.
  const own = new AbortController();
  if (outer.aborted) own.abort(outer.reason);
  else outer.addEventListener('abort', () => own.abort(outer.reason), { once: true });
  const signal = own.signal;
  const job = parseJob(bullJob.data);
  const attempt = String(bullJob.attemptsStarted ?? 1);
  const sessionDir = deps.home.session(job.run_id, job.task_id, `${bullJob.id ?? 'job'}-${attempt}`.replace(/[^A-Za-z0-9._-]/g, '_'));
  const resultOf = jobResult(job, sessionDir);
  const trace = StartTrace.forJob(job.task_id);
  trace?.mark('picked');

  // Asked now, answered beside the job's first steps (runHeldJob): a job of a run aborted before
  // it started still ends before anything is made for it, as it did when this was asked first.
  const aborted = isAborted(deps.redis, deps.keys, job.run_id);
  aborted.catch(() => undefined);
  const abortedBefore = () => resultOf({ status: 'aborted', end_reason: 'aborted', detail: 'the run was aborted before this job started' });
  // Refused before anything is made for it: no ports, no worktree, no hook run.
  const sandbox = jobSandbox(job, deps.sandbox);
  if (sandbox.refusal) {
    if (await aborted) return abortedBefore();
    return resultOf({ end_reason: 'sandbox', detail: `worker ${os.hostname()}:${process.pid}: ${sandbox.refusal}` });
  }

  // A job naming a folder this host does not have fails before anything is taken (workers elsewhere need --share).
  if (job.repo.path && !existsSync(job.repo.path)) {
    if (await aborted) return abortedBefore();
    throw new UnrecoverableError(unseenRepo(job.repo.path));
  }
  const progress = new ProgressReporter(bullJob, deps.redis, deps.keys, job);
  const run: JobRun = {
    job,
    deps,
    attempt,
    sessionDir,
    signal,
    stopJob: (reason: string) => own.abort(reason),
    sandbox,
    progress,
    resultOf,
    hookContext: workspaceHookContext(job, sessionDir, progress),
    held: { outcome: { committed: false, keep: false, completed: false, job } },
    trace,
    aborted,
    abortedBefore,
  };
  // Everything that takes something (the lease, the workspace) is held in `run.held`: every way out releases it.
  try {
    return await runHeldJob(run).catch((error: unknown) => {
      // Found after the job began, before anything of it ran in the tree (JobWorkspace.startCheck).
      if (error instanceof TreeNotAtStartError) return resultOf({ end_reason: 'pooled_worktree_changed', detail: error.message });
      throw error;
    });
  } finally {
    await releaseHeld(run);
  }
}

/** The job from its lease to its agent's result: workspace, setup, model, harness, then the agent. */
async function runHeldJob(run: JobRun): Promise<AgentJobResult> {
  const { job, deps, held, progress, resultOf } = run;
  const started = await startTogether(run);
  if (!started) return run.abortedBefore();
  const { ports, config, hooks, repository } = started;
  run.trace?.mark('leased_configured');
  // The user's checkout as the agent's watch starts from (begun now where the session runs code before its first call).
  const checkoutBaseline = checkoutBaselineFor(job, hooks, repository.config);
  const workspace = await openWorkspace(run, hooks, ports, repository);
  // Asked now, read when the harness is built: it overlaps the steps in between. A job that
  // ends before that (a model it cannot make) has no use for it, nor for its failure.
  const gitAtStart = freshSnapshot(workspace, job.base);
  gitAtStart.catch(() => undefined);
  run.trace?.mark('workspace');
  // An external agent starts now, beside the rest of the session's set-up: its own start is most of its wait.
  // It runs from then on, beside orca's calls: the checkout's baseline is taken before, and the tree known to be its start.
  if (isExternalAgent(job.agent)) await Promise.all([checkoutBaseline?.taken(), treeAtStart(workspace)]);
  held.agent = await startJobAgent(job, { workspace, sessionDir: run.sessionDir, ports, sandbox: run.sandbox.kind });
  await announceWorkspace(progress, workspace, ports, deps.slot, run.sandbox.kind, backendName(job.agent));
  // orca.json's setup, before any model call: a task whose worktree cannot be made ready fails here, cheaply.
  if (workspace.config.setup.length > 0) await treeAtStart(workspace);
  const setup = await setUpWorktree({
    job,
    workspace,
    ports,
    sessionDir: run.sessionDir,
    signal: run.signal,
    progress,
    sandboxMode: run.sandbox.mode,
    config,
  });
  if (!setup.ok) {
    // The worktree stays, as a failed agent's does: the setup's log and what it left are there to look at.
    held.outcome = { ...held.outcome, keep: true };
    return resultOf({ end_reason: 'setup_failed', detail: setup.detail ?? 'the setup failed', worktree: workspace.dir });
  }
  run.trace?.mark('setup');
  const model = buildModel(job, deps);
  if (model instanceof ModelError) return resultOf({ detail: model.message, worktree: workspace.dir });
  const session = await buildJobHarness({
    stopJob: run.stopJob,
    job,
    redis: deps.redis,
    keys: deps.keys,
    workspace,
    ports,
    model,
    sessionDir: run.sessionDir,
    attempt: run.attempt,
    signal: run.signal,
    userClaudeDir: deps.userClaudeDir,
    config,
    gitAtStart,
    checkoutBaseline: checkoutBaseline?.checkout === workspace.repo ? checkoutBaseline : undefined,
    progress,
    sandboxMode: run.sandbox.mode,
    orcaHome: deps.home.root,
    trace: run.trace,
  });
  held.harness = session.harness;
  run.trace?.mark('harness');
  run.trace?.write();
  return runAgent(run, session, workspace, model);
}

/**
 * The agent run, then judged: a completed agent's Report by its gates and its work committed (the
 * commit's own check may refuse the branch), a failed one's last refused Report handed back with it.
 */
async function runAgent(run: JobRun, session: JobHarness, workspace: JobWorkspace, model: Model): Promise<AgentJobResult> {
  const { job, held, resultOf } = run;
  const { harness } = session;
  const result = await harness.run(job.prompt, (event) => run.progress.agentEvent(event), held.agent?.driver);
  const steps: EndSteps = { session: Date.now() };
  const tampered = guardedStartFileChanges(workspace);
  const status = tampered ? 'failed' : statusOf(result, run.signal);
  // A failed agent whose last Report was refused hands back that report's gates: they say why.
  const gates =
    status === 'completed' ? await judgeReport(session, result.report) : status === 'failed' ? lastRefusedReport(session) : undefined;
  steps.judged = Date.now();
  const committed = status === 'completed' ? await commitWork(workspace, job, result, session.reportChanges()) : {};
  steps.committed = Date.now();
  if (committed.refused) {
    // The commit's own check refused the branch: nothing of it is handed back to merge.
    held.outcome = { committed: false, keep: true, completed: false, job };
    const ran = ranResult({ workspace, model, harness, result, status: 'failed', gates });
    return resultOf({ ...ran, end_reason: 'refused_changes', detail: committed.refused, end_steps: steps });
  }
  const commit = committed.commit;
  held.outcome = { committed: commit !== undefined, keep: keepsChanges(status, run.deps), completed: status === 'completed', job };
  const ran = { ...ranResult({ workspace, model, harness, result, status, gates, commit, files: committed.files }), end_steps: steps };
  if (tampered) return resultOf({ ...ran, end_reason: 'guarded_change', detail: tampered });
  // An aborted agent says why its run was aborted (`orca abort`, a budget, a changed configuration), when the loop did not.
  return resultOf(status === 'aborted' && !ran.detail ? { ...ran, detail: abortReason(run.signal) } : ran);
}

/**
 * Everything the job held, given back whatever happened, each part even when another failed (a
 * lost Redis write keeps no worktree or ports); the first failure is thrown once all are done.
 */
async function releaseHeld({ held, progress, hookContext }: JobRun): Promise<void> {
  // An external agent whose session never ran (a failed setup, an abort) is stopped here (one that
  // ran already was), and its MCP servers are given back (the harness does on its own when `run` ends).
  const closed = await Promise.allSettled([held.agent?.close(), held.harness?.close()]);
  // The ports and the worktree are independent: given back at once.
  const given = await Promise.allSettled([held.lease?.release(), releaseJobWorkspace(held, hookContext)]);
  // The events last, a WorktreeRemove hook's included: all of them are on the run's stream before its result.
  const flushed = await Promise.allSettled([progress.flush()]);
  const failed = [...closed, ...given, ...flushed].find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (failed) throw failed.reason;
}

async function releaseJobWorkspace(held: HeldByJob, hookContext: JobRun['hookContext']): Promise<void> {
  if (!held.workspace || !held.repoHooks) return;
  // Its hooks run even after an abort: they get a signal of their own, never aborted.
  await releaseWorkspace(held.workspace, held.outcome, {
    config: held.repoHooks,
    context: (dir) => hookContext(dir, new AbortController().signal),
  });
}

/**
 * A job that names a repository by a path this host does not have (a worker on another machine,
 * or in a container): it can do nothing, so it fails at once, saying how runs reach such workers.
 */
function unseenRepo(repo: string): string {
  return `the job names the repository ${repo}, which this host (${os.hostname()}) cannot see: run with --share <git-url> (or ORCA_SHARE) so workers on other hosts get it over git`;
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

/**
 * A failed or aborted agent's changes stay in its worktree for inspection, uncommitted; not
 * when the job is being handed to another worker, which starts over from the branch (the
 * changes are saved under the task's work-in-progress ref before the worktree goes).
 */
function keepsChanges(status: AgentJobResult['status'], deps: JobDeps): boolean {
  return status !== 'completed' && !(status === 'aborted' && deps.handingBack?.() === true);
}

/** The reason an abort signal carries, as text. */
function abortReason(signal: AbortSignal): string | undefined {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason.message;
  return typeof reason === 'string' ? reason : undefined;
}
