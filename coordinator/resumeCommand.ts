import { DONE_WELL } from '../shared/core/events/taskStatusGroups.js';
import { MISSING_API_KEY } from '../shared/core/model/anthropic.js';
import { parseScript } from '../shared/core/model/scriptFile.js';
import { DEFAULT_CHECK_NETWORK } from '../shared/core/sandbox/checkNetwork.js';
import { sandboxStatus } from '../shared/policy/permissions/sandboxLine.js';
import { resumedAskWait } from './asks/askOptions.js';
import { RunMemory } from './memory/runMemory.js';
import { UserError } from './repoCheck.js';
import { coordinateRun } from './run/runCoordinator.js';
import { RunRecorder } from './run/runRecorder.js';
import { exitCodeOf, printRunResult } from './run/runResult.js';
import { OrcaServices } from './services.js';

/**
 * `orca resume RUN`: carries on a run whose coordinator died, from what Redis and git hold. The
 * run's events say what is done: findings and plan are kept, merged tasks are not redone, a task
 * whose job is still waiting or running (or finished meanwhile) is adopted, not started again.
 */
export async function resumeCommand(
  runId: string,
  options: {
    json: boolean;
    workers: number;
    concurrency: number;
    localWorkers: boolean;
    /** `--ask-timeout` given to the resume; else the run's own, else as `orca run` decides (askOptions.ts). */
    askTimeout?: number;
    /** A person can answer at this terminal. */
    terminal: boolean;
  },
): Promise<number> {
  const services = await OrcaServices.open({ workers: options.localWorkers ? options.workers : 0, concurrency: options.concurrency });
  try {
    const recorder = await RunRecorder.load(services.redis, services.keys, runId);
    const { state } = recorder;
    const { run } = state;
    if (run.ended_at !== undefined) {
      process.stderr.write(`orca: run ${runId} already ended: ${run.status}\n`);
      return exitCodeOf(run.status);
    }
    const settings = run.settings;
    const script = settings?.script ? parseScript(settings.script as object, `the script of run ${runId}`) : undefined;
    if (!script && !process.env.ANTHROPIC_API_KEY) throw new UserError(MISSING_API_KEY);
    // The run's own --sandbox, as it began: without a sandbox, only off goes on.
    const sandbox = sandboxStatus(settings?.sandbox ?? 'auto', { source: `--sandbox ${settings?.sandbox ?? 'auto'}` });
    if (sandbox.refusal) throw new UserError(sandbox.refusal);
    process.stderr.write(`orca: run ${runId}\n`);
    process.stderr.write(`orca: ${sandbox.line}\n`);
    const say = options.json ? undefined : (line: string) => process.stderr.write(`${line}\n`);
    say?.(
      `resuming run ${runId} (phase ${run.phase ?? 'start'}; ${[...state.tasks.values()].filter((t) => DONE_WELL.includes(t.status)).length} task(s) already merged)`,
    );
    const remaining = settings?.deadline ? settings.deadline - Date.now() : undefined;
    // The run's own day, so a card remembered after the resume resolves its dates as the run began.
    const memory =
      settings?.memory === false || !run.repo
        ? undefined
        : await RunMemory.open({ orcaHome: services.home.root, repo: run.repo, startedAt: run.created_at ?? Date.now() });
    const command = settings?.command;
    const result = await coordinateRun(services, recorder, {
      task: run.task ?? '',
      repo: run.repo ?? '',
      base: run.base ?? '',
      checks: run.checks,
      checkNetwork: settings?.check_network ?? DEFAULT_CHECK_NETWORK,
      model: settings?.model_id ? { id: settings.model_id, thinking: settings.thinking, effort: settings.effort } : undefined,
      script,
      approve: settings?.approve ?? false,
      budgets: {
        maxAgents: settings?.max_agents ?? Math.max(1, options.workers * options.concurrency),
        maxTokens: settings?.max_tokens,
        maxCostUsd: settings?.max_cost_usd,
        wallClockMs: remaining !== undefined ? Math.max(1, remaining) : undefined,
      },
      say,
      tty: Boolean(process.stderr.isTTY) && !options.json,
      asks: { ...resumedAskWait(options.askTimeout, settings?.ask_timeout_ms, options.terminal), yesTo: settings?.yes_to ?? [] },
      memory,
      pluginDirs: settings?.plugin_dirs ?? [],
      mcp: settings?.mcp,
      agents: settings?.agents,
      sandbox: settings?.sandbox ?? 'auto',
      toolLimit: command?.allowed_tools
        ? { source: `${command.invoked.split(/\s/, 1)[0]} (${command.file})`, rules: command.allowed_tools }
        : undefined,
      share: settings?.share,
    });
    return printRunResult(result, recorder.state, options.json);
  } finally {
    await services.close();
  }
}
