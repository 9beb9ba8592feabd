import type { RoleDefinition } from '../../roles/role.js';
import { availableRoles } from '../../roles/roleCatalog.js';
import type { RunStatus } from '../../shared/core/events/runEvent.js';
import { ENDED } from '../../shared/core/events/taskStatusGroups.js';
import { integrationBranch, wipRef } from '../../shared/core/git/orcaBranch.js';
import { readOrcaProjectConfig } from '../../shared/core/git/orcaProjectConfig.js';
import type { Script } from '../../shared/core/model/scriptFile.js';
import type { SandboxMode } from '../../shared/core/runtime/sandboxMode.js';
import { publishAbort, subscribeAborts } from '../../shared/infra/queue/runAbort.js';
import { connectRedis } from '../../shared/infra/redis/redisConnection.js';
import { TerminalAsks } from '../asks/terminalAsks.js';
import type { RunMemory } from '../memory/runMemory.js';
import { IntegrationBranch } from '../merge/integration.js';
import type { ModelChoice } from '../modelChoice.js';
import { readRunConfig } from '../runConfig.js';
import { recordRun, recordRunEnd } from '../runLedger.js';
import type { OrcaServices } from '../services.js';
import { waitForApproval } from './approval.js';
import { dispatchPhase } from './dispatchPhase.js';
import { explorePhase } from './explorePhase.js';
import { handOverWorktrees } from './handOver.js';
import { JobRunner } from './jobRunner.js';
import { describePlan, planPhase } from './planPhase.js';
import { type RunContext, RunFailure } from './runContext.js';
import { RunPool } from './runPool.js';
import type { RunRecorder } from './runRecorder.js';
import { type RunJson, runJson } from './runResult.js';
import { planTasksOf, runStatus } from './runStatus.js';
import { type RunBudgets, RunWatch } from './runWatch.js';
import { SharedRun } from './sharedRun.js';
import { type VerifyOutcome, verifyPhase } from './verifyPhase.js';

export interface RunSettings {
  task: string;
  repo: string;
  base: string;
  checks: string[];
  /** Whether the integration checks reach the host network (`--check-network`). */
  checkNetwork: 'host' | 'none';
  /** The model every job carries; unset with the Scripted model, or for a run recorded before the id was. */
  model?: ModelChoice;
  script?: Script;
  approve: boolean;
  budgets: RunBudgets & { maxAgents: number; wallClockMs?: number };
  /** Lines for the person watching; undefined with --json. */
  say?: (line: string) => void;
  tty: boolean;
  /** How the agents' permission requests are answered when no person does: the wait, and answers given in advance. */
  asks: { timeoutMs: number; yesTo: string[] };
  /** The run's memory (docs/memory.md); undefined with --no-memory. */
  memory?: RunMemory;
  /** The `allowed-tools` of the slash command the task came from: every agent of the run is limited to them. */
  toolLimit?: { source: string; rules: string[] };
  /** Claude Code plugin folders (`--plugin-dir`): every agent of the run loads them. */
  pluginDirs?: string[];
  /** `--mcp`: the MCP servers the run gives its built-in roles (docs/mcp.md). */
  mcp?: string[];
  /** `--sandbox`: every job carries it to its worker. */
  sandbox: SandboxMode;
  /** The git remote the run is shared over (`--share`): workers on any host get the repository from it. */
  share?: string;
}

/**
 * One run, from its first event to its verdict: explore, plan (and wait for approval when asked),
 * dispatch the DAG and merge, verify the merged tree. Aborts (Ctrl-C, `orca abort`, a budget)
 * stop new dispatch and cancel the running agents everywhere. A resumed run skips what its
 * events show as done.
 */
export async function coordinateRun(services: OrcaServices, recorder: RunRecorder, settings: RunSettings): Promise<RunJson> {
  const runId = recorder.runId;
  const abort = new AbortController();
  let abortReason: string | undefined;
  // Assigned below; an abort may come before (its line then goes straight out).
  let watch: RunWatch | undefined;
  const say = (line: string) => (watch ? watch.say(line) : settings.say?.(line));
  const stop = (reason: string) => {
    if (abort.signal.aborted) return;
    abortReason = reason;
    say(`stopping the run: ${reason}`);
    abort.abort(new Error(reason));
    void publishAbort(services.redis, services.keys, runId, reason);
  };
  const subscriber = connectRedis(services.redisService.url);
  await subscribeAborts(subscriber, services.keys, (id, reason) => {
    if (id === runId) stop(reason);
  });
  const onSigint = () => stop('interrupted by the user (Ctrl-C)');
  process.on('SIGINT', onSigint);
  const wallClock = settings.budgets.wallClockMs
    ? setTimeout(() => stop(`the run's wall clock budget of ${settings.budgets.wallClockMs} ms ran out`), settings.budgets.wallClockMs)
    : undefined;
  const watchConnection = connectRedis(services.redisService.url);
  // Requests are asked here when a person is at the terminal, and shown (with how to answer) otherwise.
  const asks = settings.say
    ? new TerminalAsks({
        redis: services.redis,
        keys: services.keys,
        runId,
        write: settings.say,
        interactive: settings.tty && process.stdin.isTTY === true,
      })
    : undefined;
  watch = new RunWatch(watchConnection, services.keys, recorder.state, {
    budgets: settings.budgets,
    onBudget: stop,
    print: settings.say,
    tty: settings.tty,
    asks,
  });
  watch.start();

  const ledgerEntry = {
    run_id: runId,
    kind: 'run' as const,
    prefix: services.keys.prefix,
    repo: settings.repo,
    base: settings.base,
    result_branch: integrationBranch(runId),
    ...(settings.share ? { share: settings.share } : {}),
  };
  recordRun(services.home, ledgerEntry);
  // Every agent's settings, hooks, rules, skills and instructions: read once, at the run's base
  // commit (and from the user's folders), never from a tree an agent wrote (a task branch, the
  // merged tree the Verification agent works on).
  const config = await readRunConfig(settings.repo, settings.base);
  for (const problem of config.problems) say(`configuration: ${problem}`);
  const roles = new Map(availableRoles(settings.repo, { config, pluginDirs: settings.pluginDirs }).roles.map((role) => [role.name, role]));
  const integration = new IntegrationBranch(settings.repo, runId, services.home.integrationWorktree(runId));
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
  integration.onMerged = (head) => pool?.warm(head);
  const ctx: RunContext = {
    services,
    recorder,
    jobs: new JobRunner(services, recorder, {
      repo: settings.repo,
      model: settings.model,
      script: settings.script,
      maxInFlight: settings.budgets.maxAgents,
      signal: abort.signal,
      asks: { timeout_ms: settings.asks.timeoutMs, yes_to: settings.asks.yesTo },
      memory: settings.memory,
      toolLimit: settings.toolLimit,
      pluginDirs: settings.pluginDirs ?? [],
      project,
      mcp: settings.mcp,
      config,
      sandbox: settings.sandbox,
      shared: settings.share ? new SharedRun(settings.share, settings.repo, runId) : undefined,
    }),
    integration,
    repo: settings.repo,
    task: settings.task,
    base: settings.base,
    checks: settings.checks,
    checkNetwork: settings.checkNetwork,
    role: (name) => roles.get(name) as RoleDefinition,
    signal: abort.signal,
    say,
  };

  let status: RunStatus = 'FAIL';
  let detail = '';
  let verify: VerifyOutcome | undefined;
  try {
    const opened = await integration.open(settings.base);
    pool?.warm(opened);
    if (!recorder.state.run.findings && !abort.signal.aborted) await explorePhase(ctx);
    if (!recorder.state.run.plan && !abort.signal.aborted) {
      await planPhase(ctx);
      if (settings.approve && !abort.signal.aborted) await approve(ctx, settings.tty, stop);
    }
    if (recorder.state.run.approved === false) {
      status = 'ABORTED';
      detail = 'the plan was rejected; nothing was written';
    } else {
      if (!abort.signal.aborted) await dispatchPhase(ctx);
      // A tree equal to the base has nothing of the run's to verify: no Verification job passes it.
      const unchanged = await integration.sameTreeAs(settings.base);
      if (!abort.signal.aborted) {
        if (unchanged) ctx.say('nothing was merged: the integration tree is the base tree, so nothing is verified');
        else verify = await verifyPhase(ctx);
      }
      ({ status, detail } = runStatus({ tasks: planTasksOf(recorder.state), verify, unchanged, abortReason }));
    }
  } catch (error) {
    if (!(error instanceof RunFailure)) throw error;
    status = abortReason ? 'ABORTED' : 'FAIL';
    detail = abortReason ?? error.message;
  } finally {
    process.off('SIGINT', onSigint);
    if (wallClock) clearTimeout(wallClock);
    await watch.close();
    asks?.close();
    watchConnection.disconnect();
    subscriber.disconnect();
  }
  const head = await integration.head();
  await recorder.record({ type: 'verdict', status, detail });
  await recorder.record({
    type: 'run_end',
    status,
    head,
    usage: recorder.state.run.result_usage,
    cost_usd: recorder.state.run.result_cost_usd,
    detail,
  });
  recordRunEnd(services.home, ledgerEntry, status);
  // Nothing of this process's still fills the pool when it is removed with the run's worktrees.
  await pool?.close();
  await handOver(ctx, head);
  return runJson(recorder.state, {
    status,
    head,
    gates: verify?.gates ?? [],
    verification: verify?.verification ?? null,
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
