import type { RoleDefinition } from '../../roles/role.js';
import { roleSpec } from '../../roles/roleSpec.js';
import { describeFiled } from '../../shared/context/memory/fileCard.js';
import type { AgentBackend } from '../../shared/core/agents/agentBackend.js';
import { agentForRole, choiceByRole } from '../../shared/core/agents/agentChoice.js';
import { ADOPTABLE } from '../../shared/core/events/taskStatusGroups.js';
import type { InheritedFileState } from '../../shared/core/files/readFileState.js';
import { orcaBranch } from '../../shared/core/git/orcaBranch.js';
import type { Script } from '../../shared/core/model/scriptFile.js';
import type { AgentJob, AgentJobResult } from '../../shared/infra/queue/agentJob.js';
import { agentJobId } from '../../shared/infra/queue/agentQueue.js';
import type { TrustedConfig } from '../../shared/infra/queue/trustedConfig.js';
import { waitUnlessWithdrawn } from '../jobWithdrawal.js';
import type { RunMemory } from '../memory/runMemory.js';
import type { ModelChoice } from '../modelChoice.js';
import type { OrcaServices } from '../services.js';
import { howItEnded } from './howItEnded.js';
import type { RunRecorder } from './runRecorder.js';
import type { SharedRun } from './sharedRun.js';

export interface JobSpec {
  taskId: string;
  role: RoleDefinition;
  prompt: string;
  base: string;
  /** The plan subtask id (Scripted scripts match on it). */
  subtask?: string;
  checks?: string[];
  /** The path globs the job's agent may change (the subtask's, or those of what it redoes); unset: every path but the guarded ones. */
  ownedPaths?: string[];
  fileState?: InheritedFileState[];
  /** How the board names the job (orca's own jobs; plan subtasks have their plan title). */
  title?: string;
}

/**
 * Sends agent jobs for one run and waits for their results, at most `maxInFlight` at once.
 * Every job is recorded as queued before it is added (so no agent event can precede it) and its
 * result as a task_result; a job that failed outright in its worker becomes a failed result.
 */
export class JobRunner {
  private inFlight = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly services: OrcaServices,
    private readonly recorder: RunRecorder,
    private readonly options: {
      repo: string;
      model?: ModelChoice;
      script?: Script;
      maxInFlight: number;
      signal: AbortSignal;
      /** How the agents' permission requests are answered when no person does. */
      asks: AgentJob['asks'];
      /** Cards for each job's prompt, and the filing of what agents remember; undefined with --no-memory. */
      memory?: RunMemory;
      /** The `allowed-tools` of the slash command the run was started with. */
      toolLimit?: { source: string; rules: string[] };
      /** Claude Code plugin folders every job loads. */
      pluginDirs?: string[];
      /** The repository's orca.json at the run's base commit: every job's worktree is made ready by it. */
      project?: AgentJob['project'];
      /** `--mcp`: the MCP servers the run gives its built-in roles. */
      mcp?: string[];
      /** `--agent`: agent names by role (orca.json's `agent` and a role file's `agent:` are weaker). */
      agents?: Record<string, string>;
      /** The run's trusted configuration, read once at its base commit: every job carries it. */
      config: TrustedConfig;
      /** `--sandbox` of the run. */
      sandbox: AgentJob['sandbox'];
      /** Set for a run shared over git (`--share`): jobs name its URL, bases are pushed there, branches fetched back. */
      shared?: SharedRun;
    },
  ) {}

  get running(): number {
    return this.inFlight;
  }

  async run(spec: JobSpec): Promise<AgentJobResult> {
    await this.slot();
    try {
      return await this.dispatch(spec);
    } finally {
      this.inFlight -= 1;
      this.waiting.shift()?.();
    }
  }

  /** The agent that runs a role's jobs: `--agent`, else the role file's `agent:`, else orca.json's, else orca's own. */
  private agentFor(role: RoleDefinition, subtask: string | undefined): AgentBackend {
    const { project } = this.options;
    const chosen = agentForRole(
      role.name,
      {
        option: this.options.agents ?? {},
        roleFile: role.agent,
        project: choiceByRole(project?.agent),
        defined: project?.agents,
      },
      subtask,
    );
    if ('problem' in chosen) throw new Error(chosen.problem);
    return chosen;
  }

  private async slot(): Promise<void> {
    while (this.inFlight >= this.options.maxInFlight) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.inFlight += 1;
  }

  private async dispatch(spec: JobSpec): Promise<AgentJobResult> {
    const adopted = await this.adopt(spec.taskId);
    if (adopted) return adopted;
    const { recorder } = this;
    const attempt = (recorder.state.tasks.get(spec.taskId)?.attempt ?? 0) + 1;
    const jobId = agentJobId(recorder.runId, spec.taskId, attempt);
    if (!recorder.state.tasks.has(spec.taskId)) {
      await recorder.record({
        type: 'task_created',
        task_id: spec.taskId,
        role: spec.role.name,
        title: spec.title ?? spec.prompt.split('\n', 1)[0]!.slice(0, 120),
        depends_on: [],
        paths: spec.ownedPaths ?? [],
        checks: spec.checks ?? [],
      });
    }
    await recorder.record({ type: 'task_state', task_id: spec.taskId, status: 'queued', attempt, job_id: jobId });
    const { source: _source, ...script } = this.options.script ?? { source: '' };
    const { shared } = this.options;
    if (shared) await shared.publish(spec.base);
    const added = await this.services.queue.add(
      {
        run_id: recorder.runId,
        task_id: spec.taskId,
        subtask: spec.subtask,
        role: roleSpec(spec.role),
        prompt: spec.prompt,
        repo: shared ? { remote: shared.url } : { path: this.options.repo },
        base: spec.base,
        branch: spec.role.workspace === 'branch' ? orcaBranch(recorder.runId, spec.taskId) : undefined,
        file_state: spec.fileState ?? [],
        model: { ...this.options.model, script: this.options.script ? script : undefined },
        checks: spec.checks ?? [],
        owned_paths: spec.ownedPaths,
        stop_event: 'SubagentStop',
        plugin_dirs: this.options.pluginDirs ?? [],
        asks: this.options.asks,
        memory: this.options.memory?.forPrompt(spec.prompt),
        tool_limit: this.options.toolLimit,
        project: this.options.project,
        mcp: this.options.mcp,
        config: this.options.config,
        sandbox: this.options.sandbox,
        agent: this.agentFor(spec.role, spec.subtask),
      },
      attempt,
    );
    return this.settle(spec.taskId, added.data, jobId, attempt);
  }

  /**
   * On a resumed run: the job a task already had, if it is still waiting, running or done (its
   * result is used, never run again); undefined when there is none or it failed in its worker.
   */
  private async adopt(taskId: string): Promise<AgentJobResult | undefined> {
    const task = this.recorder.state.tasks.get(taskId);
    if (!task?.job_id || !ADOPTABLE.includes(task.status)) return undefined;
    const job = await this.services.queue.getJob(task.job_id);
    if (!job || (await job.getState()) === 'failed') return undefined;
    return this.settle(taskId, job.data, task.job_id, task.attempt);
  }

  private async settle(taskId: string, job: AgentJob, jobId: string, attempt: number): Promise<AgentJobResult> {
    const { recorder } = this;
    let result: AgentJobResult;
    try {
      // Ctrl-C or `orca abort` takes a job no worker has taken off the queue: the run never waits for one that may not come.
      result = await waitUnlessWithdrawn(this.services, job, jobId, this.options.signal);
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      await recorder.record({ type: 'task_state', task_id: taskId, status: 'failed', attempt, job_id: jobId, detail });
      throw error;
    }
    if (recorder.state.tasks.get(taskId)?.result_job_id === jobId) return result;
    if (this.options.shared && result.branch && result.commit) {
      // The worker pushed it to the shared remote: the merge needs it here, in the user's repository.
      try {
        await this.options.shared.fetchTask(taskId, result.branch, result.commit);
      } catch (error) {
        const detail = error instanceof Error ? error.message : String(error);
        await recorder.record({ type: 'task_state', task_id: taskId, status: 'failed', attempt, job_id: jobId, detail });
        throw error;
      }
    }
    if (taskId.startsWith('_')) {
      // orca's own jobs (coordinator, explore, plan, verify, …) settle here; plan subtasks settle when merged.
      const status = result.status === 'completed' ? 'completed' : result.status === 'aborted' ? 'aborted' : 'failed';
      await recorder.record({
        type: 'task_state',
        task_id: taskId,
        status,
        attempt,
        job_id: jobId,
        detail: howItEnded(result),
      });
    }
    await recorder.record({
      type: 'task_result',
      task_id: taskId,
      job_id: jobId,
      status: result.status,
      end_reason: result.end_reason,
      detail: result.detail,
      branch: result.branch,
      commit: result.commit,
      worktree: result.worktree,
      transcript: result.transcript,
      host: result.host,
      pid: result.pid,
      turns: result.turns,
      usage: result.usage,
      cost_usd: result.cost_usd,
      sandbox: result.sandbox,
      agent: result.agent,
      usage_reported: result.usage_reported,
    });
    await this.fileMemory(taskId, result);
    return result;
  }

  /** Files what the job's agent remembered (once: a resumed run's settled results are not filed again). */
  private async fileMemory(taskId: string, result: AgentJobResult): Promise<void> {
    const { memory } = this.options;
    if (!memory || result.remembered.length === 0) return;
    let filed: Awaited<ReturnType<RunMemory['file']>>;
    try {
      filed = await memory.file(result.remembered);
    } catch (error) {
      const detail = `the cards ${taskId} remembered could not be filed: ${error instanceof Error ? error.message : String(error)}`;
      await this.recorder.record({ type: 'memory_filed', task_id: taskId, outcome: 'failed', title: '', detail });
      return;
    }
    for (const [index, outcome] of filed.entries()) {
      const card = outcome.kind === 'refused' ? undefined : outcome.kind === 'queued' ? outcome.pending.pending : outcome.stored.card;
      await this.recorder.record({
        type: 'memory_filed',
        task_id: taskId,
        outcome: outcome.kind,
        card_id: outcome.kind === 'queued' ? outcome.conflictsWith.id : card?.id,
        title: card?.title ?? result.remembered[index]!.title,
        detail: describeFiled(outcome),
      });
    }
  }
}
