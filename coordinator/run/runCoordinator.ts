import type { RunStatus } from '../../shared/core/events/runEvent.js';
import { ENDED } from '../../shared/core/events/taskStatusGroups.js';
import { integrationBranch, wipRef } from '../../shared/core/git/orcaBranch.js';
import { connectRedis } from '../../shared/infra/redis/redisConnection.js';
import { IntegrationError } from '../merge/integrationError.js';
import { Landing } from '../merge/landing.js';
import { recordRun, recordRunEnd } from '../runLedger.js';
import type { OrcaServices } from '../services.js';
import { waitForApproval } from './approval.js';
import { CoordinatorPulse } from './coordinatorPulse.js';
import { dispatchPhase } from './dispatchPhase.js';
import { explorePhase } from './explorePhase.js';
import { handOverWorktrees } from './handOver.js';
import { checkMergedTree } from './integrationChecks.js';
import { openRun } from './openRun.js';
import { describePlan, planPhase } from './planPhase.js';
import { type RunContext, RunFailure } from './runContext.js';
import type { RunPool } from './runPool.js';
import type { RunRecorder } from './runRecorder.js';
import { type RunJson, runJson } from './runResult.js';
import type { RunSettings } from './runSettings.js';
import { planTasksOf, runStatus } from './runStatus.js';
import { RunStopper } from './runStopper.js';
import { type RunWatching, watchRun } from './runWatching.js';
import { type VerifyOutcome, verifyPhase } from './verifyPhase.js';

/**
 * One run, from its first event to its verdict: explore, plan (and wait for approval when asked),
 * dispatch the DAG and merge, verify the merged tree. Aborts (Ctrl-C, `orca abort`, a budget)
 * stop new dispatch and cancel the running agents everywhere. A resumed run skips what its
 * events show as done.
 */
export async function coordinateRun(services: OrcaServices, recorder: RunRecorder, settings: RunSettings): Promise<RunJson> {
  // Said from the start to the end: a run with no pulse has no coordinator, and `orca abort` ends it itself.
  const pulse = await CoordinatorPulse.start(services.redis, services.keys, recorder.runId);
  try {
    return await coordinate(services, recorder, settings);
  } finally {
    await pulse.stop();
  }
}

async function coordinate(services: OrcaServices, recorder: RunRecorder, settings: RunSettings): Promise<RunJson> {
  // Assigned below; an abort may come before (its line then goes straight out).
  let watching: RunWatching | undefined;
  const say = (line: string) => (watching ? watching.watch.say(line) : settings.say?.(line));
  const stopper = await RunStopper.open(services, recorder.runId, say, settings.budgets.wallClockMs);
  watching = watchRun(services, recorder, settings, (reason) => stopper.stop(reason));
  const ledgerEntry = {
    run_id: recorder.runId,
    kind: 'run' as const,
    prefix: services.keys.prefix,
    repo: settings.repo,
    base: settings.base,
    result_branch: integrationBranch(recorder.runId),
    ...(settings.share ? { share: settings.share } : {}),
  };
  recordRun(services.home, ledgerEntry);
  const { ctx, pool } = await openRun(services, recorder, settings, { signal: stopper.signal, say });
  let outcome: RunOutcome;
  try {
    outcome = await runPhases(ctx, pool, settings, stopper);
  } catch (error) {
    // The integration branch moved under the run, or its worktree would not take a merge: FAIL, saying why, never a crash.
    if (!(error instanceof RunFailure) && !(error instanceof IntegrationError)) throw error;
    outcome = { status: stopper.reason ? 'ABORTED' : 'FAIL', detail: stopper.reason ?? error.message };
  } finally {
    stopper.close();
    await watching.close();
  }
  const head = await resultHead(ctx);
  await recordEnd(recorder, outcome, head);
  recordRunEnd(services.home, ledgerEntry, outcome.status);
  // Nothing of this process's still fills the pool when it is removed with the run's worktrees.
  await pool?.close();
  await handOver(ctx, head);
  const { status, detail, verify } = outcome;
  return runJson(recorder.state, { status, head, gates: verify?.gates ?? [], verification: verify?.verification ?? null, detail });
}

/** The result's head: the integration branch's, or, when it moved under the run, the last head the coordinator recorded on it. */
async function resultHead(ctx: RunContext): Promise<string> {
  try {
    return await ctx.integration.head();
  } catch (error) {
    if (!(error instanceof IntegrationError)) throw error;
    return ctx.integration.recordedHead ?? ctx.base;
  }
}

/** How the run's phases ended: its status, why, and the verification when it came that far. */
interface RunOutcome {
  status: RunStatus;
  detail: string;
  verify?: VerifyOutcome;
}

/**
 * The run's phases, each skipped when the run's events show it done or the run was stopped: the
 * integration branch opened at the base, explore, plan (and the approval), dispatch and merge,
 * then verification of the merged tree unless it is the base's.
 */
async function runPhases(ctx: RunContext, pool: RunPool | undefined, settings: RunSettings, stopper: RunStopper): Promise<RunOutcome> {
  const { recorder, integration, signal } = ctx;
  const opened = await integration.open(settings.base);
  pool?.warm(opened);
  if (!recorder.state.run.findings && !signal.aborted) await explorePhase(ctx);
  if (!recorder.state.run.plan && !signal.aborted) {
    await planPhase(ctx);
    if (settings.approve && !signal.aborted) await approve(ctx, settings.tty, (reason) => stopper.stop(reason));
  }
  if (recorder.state.run.approved === false) return { status: 'ABORTED', detail: 'the plan was rejected; nothing was written' };
  const check = ctx.checks.length > 0 ? (label: string) => checkMergedTree(ctx, label) : undefined;
  const landing = new Landing(ctx, opened, check);
  await landing.adopt(planTasksOf(recorder.state));
  let unchanged: boolean;
  let verify: VerifyOutcome | undefined;
  try {
    if (!signal.aborted) await dispatchPhase(ctx, landing);
    // A tree equal to the base has nothing of the run's to verify: no Verification job passes it.
    unchanged = await integration.sameTreeAs(settings.base);
    if (!signal.aborted) {
      if (unchanged) ctx.say('nothing was merged: the integration tree is the base tree, so nothing is verified');
      else verify = await verifyPhase(ctx, landing);
    }
  } catch (error) {
    // The integration worktree would not take a merge: the run ends FAIL (coordinateRun), with nothing of it left on the branch.
    // A branch that moved under the run is not the coordinator's to move back.
    if (error instanceof IntegrationError && error.kind === 'merge_failed') await landing.takeBack(`the run stopped: ${error.message}`);
    throw error;
  }
  // Verification may have taken work back off (landing.ts): what counts is what is on the branch now.
  const atBase = verify ? await integration.sameTreeAs(settings.base) : unchanged;
  const { status, detail } = runStatus({ tasks: planTasksOf(recorder.state), verify, unchanged: atBase, abortReason: stopper.reason });
  return { status, detail, verify };
}

/** The run's verdict and its end, recorded. */
async function recordEnd(recorder: RunRecorder, { status, detail }: RunOutcome, head: string): Promise<void> {
  await recorder.record({ type: 'verdict', status, detail });
  await recorder.record({
    type: 'run_end',
    status,
    head,
    usage: recorder.state.run.result_usage,
    cost_usd: recorder.state.run.result_cost_usd,
    detail,
  });
}

/**
 * The run's branches become the user's: the integration worktree goes, and the task worktrees
 * let go of their branches (handOver.ts). A failure here is said, never hidden, and does not
 * change the verdict already recorded.
 */
async function handOver(ctx: RunContext, head: string): Promise<void> {
  const { recorder, services } = ctx;
  try {
    await ctx.integration.close();
    const ended = (taskId: string) => ENDED.includes(recorder.state.tasks.get(taskId)?.status ?? 'pending');
    for (const one of await handOverWorktrees(ctx.repo, recorder.runId, services.home, ended)) {
      if (one.changes)
        ctx.say(
          `kept ${one.dir} for inspection (detached; its uncommitted changes are saved to ${wipRef(recorder.runId, one.taskId)} when orca clean removes it)`,
        );
    }
    if (head !== ctx.base)
      ctx.say(
        `the result is on ${ctx.integration.branch}: \`git switch ${ctx.integration.branch}\` to look, \`git merge ${ctx.integration.branch}\` to take it`,
      );
  } catch (error) {
    process.stderr.write(
      `orca: the run ended, but its worktrees could not all be handed over: ${error instanceof Error ? error.message.trim() : String(error)}\n`,
    );
  }
}

async function approve(ctx: RunContext, tty: boolean, stop: (reason: string) => void): Promise<void> {
  const { recorder, services } = ctx;
  await recorder.record({ type: 'run_phase', phase: 'awaiting_approval' });
  process.stderr.write(
    `${describePlan(ctx)}\n\nWaiting for approval: answer here, or run \`orca approve ${recorder.runId}\` / \`orca reject ${recorder.runId}\`.\n`,
  );
  const connection = connectRedis(services.redisService.url);
  try {
    const answer = await waitForApproval(connection, services.keys, recorder.runId, { tty, signal: ctx.signal, afterId: '0' });
    // Recorded by the coordinator too when the answer came from `orca approve`: its own state learns it here.
    await recorder.record({ type: 'approval', approved: answer.approved, by: answer.by });
    if (!answer.approved) stop('the plan was rejected');
  } finally {
    connection.disconnect();
  }
}
