import { roleSpec } from '../roles/roleSpec.js';
import { describeFiled } from '../shared/context/memory/fileCard.js';
import { orcaBranch, wipRef } from '../shared/core/git/orcaBranch.js';
import { commandMark } from '../shared/core/runtime/commandTrace.js';
import type { OrcaHome } from '../shared/core/runtime/orcaHome.js';
import type { AgentJobInput, AgentJobResult } from '../shared/infra/queue/agentJob.js';
import { agentJobId } from '../shared/infra/queue/agentQueue.js';
import { publishAbort } from '../shared/infra/queue/runAbort.js';
import type { AgentCommandOptions, AgentRead } from './agentCommandOptions.js';
import { recordTaskState, waitForAgentJob } from './agentJobWait.js';
import { openRunMemory } from './memory/openRunMemory.js';
import type { RunMemory } from './memory/runMemory.js';
import { announceRun, type PreStart } from './preStart.js';
import { CoordinatorPulse } from './run/coordinatorPulse.js';
import type { SharedRun } from './run/sharedRun.js';
import { recordRun, recordRunEnd } from './runLedger.js';
import { OrcaServices } from './services.js';

/**
 * `orca agent` once its pre-start passed (agentCommand.ts): Redis and the local workers, the run's
 * id said, the job queued and waited for, its result printed. Its imports (bullmq and ioredis
 * through the queue and the job's wait) are what agentCommand.ts loads beside the pre-start.
 */
export async function runAgent(options: AgentCommandOptions, start: PreStart<AgentRead>): Promise<number> {
  const { root, base, share } = start;
  const { services, memory } = await openServices(options, root);
  commandMark('services_open');
  const runId = announceRun(start.sandbox);
  const taskId = start.command.role.name;
  if (start.script && !options.json) process.stderr.write('orca: Scripted model (no LLM is used)\n');
  const onSigint = abortOnInterrupt(services, runId);
  process.on('SIGINT', onSigint);
  // The agent's events and permission requests on the terminal: not with --json, where nothing is followed.
  const follower = options.json ? undefined : new (await import('./agentCommandFollow.js')).AgentFollower(services, runId);
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
  const shared = share ? new (await import('./run/sharedRun.js')).SharedRun(share, root, runId) : undefined;
  // Says this command is alive, as a run's coordinator does: `orca abort` ends the run itself once it is gone.
  const pulse = await CoordinatorPulse.start(services.redis, services.keys, runId);
  commandMark('pulse_started');
  try {
    recordRun(services.home, ledgerEntry);
    await shared?.publish(base);
    const payload = { ...agentJob(options, start, { runId, taskId, branch, shared, memory }), agent: start.command.agent };
    // On the board first: a command killed right after the job is queued leaves a run `orca abort` knows.
    await recordTaskState(services, payload, agentJobId(runId, taskId, 1), 'queued');
    commandMark('task_recorded');
    const added = await services.queue.add(payload);
    commandMark('queued');
    // Needed only at the end: loaded while the worker runs the agent, not on the job's way to it.
    const handing = import('./run/handOver.js');
    handing.catch(() => undefined);
    follower?.start();
    const result = await waitForAgentJob(services, added.data);
    commandMark('result');
    // Pushed by its worker to the shared remote: the branch ends in the user's repository, as in a local run.
    if (shared && result.branch && result.commit) await shared.fetchTask(taskId, result.branch, result.commit);
    await follower?.stop();
    if (memory) for (const filed of await memory.file(result.remembered)) process.stderr.write(`orca: memory: ${describeFiled(filed)}\n`);
    recordRunEnd(services.home, ledgerEntry, result.status);
    await handOver(await handing, root, runId, services.home, options.json);
    commandMark('handed_over');
    printResult(result, options.json);
    return result.status === 'completed' ? 0 : result.status === 'aborted' ? 130 : 1;
  } finally {
    await pulse.stop();
    process.off('SIGINT', onSigint);
    follower?.close();
    await services.close();
    commandMark('closed');
  }
}

/** Redis and the local workers (a run id is said only once the run can exist), and the run's memory, read meanwhile. */
async function openServices(options: AgentCommandOptions, root: string): Promise<{ services: OrcaServices; memory?: RunMemory }> {
  // Its module loads while Redis is reached: the memory's parser is this command's only other large import.
  const opening = openRunMemory(options.memory, root);
  opening.catch(() => undefined);
  const services = await OrcaServices.open({ workers: options.localWorkers ? options.workers : 0, sandbox: options.sandbox });
  try {
    const memory = await opening;
    for (const problem of memory?.problems ?? []) process.stderr.write(`orca: memory: ${problem}\n`);
    return { services, memory };
  } catch (error) {
    await services.close();
    throw error;
  }
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

/** The agent's job: its role, prompt and model, where its repository is, and the run's options it carries to its worker. */
function agentJob(
  options: AgentCommandOptions,
  { root, base, script, model, pluginDirs, command: { role, config, project } }: PreStart<AgentRead>,
  { runId, taskId, branch, shared, memory }: { runId: string; taskId: string; branch?: string; shared?: SharedRun; memory?: RunMemory },
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
    // Read at the base for the agent's choice, as `orca run`'s coordinator reads it once for its jobs.
    project,
    sandbox: options.sandbox,
  };
}

/** The agent's branch is the user's now: its worktree lets go of it (handOver.ts). Said on stderr, never hidden. */
async function handOver(
  { handOverWorktrees }: typeof import('./run/handOver.js'),
  repo: string,
  runId: string,
  home: OrcaHome,
  quiet: boolean,
): Promise<void> {
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
