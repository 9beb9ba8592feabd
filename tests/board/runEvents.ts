import type { Redis } from 'ioredis';
import type { AgentEventInput } from '../../shared/core/events/agentEvent.js';
import type { RunEventInput, TaskStatus } from '../../shared/core/events/runEvent.js';
import type { Usage } from '../../shared/core/model/usage.js';
import { appendRunEvent } from '../../shared/infra/board/runEvents.js';
import type { Keys } from '../../shared/infra/redis/keys.js';

/**
 * Writes a run's events the way the coordinator and the workers do: through appendRunEvent, onto
 * the run's stream, with the same shapes. Each event's `at` advances one second from `start`, so
 * elapsed times are known exactly.
 */
export class RunEvents {
  private clock: number;

  constructor(
    readonly redis: Redis,
    readonly keys: Keys,
    readonly runId: string,
    start = Date.UTC(2026, 0, 1, 12, 0, 0),
  ) {
    this.clock = start;
  }

  get now(): number {
    return this.clock;
  }

  async run(event: RunEventInput): Promise<string> {
    return appendRunEvent(this.redis, this.keys, { run_id: this.runId, source: 'run', event: { ...event, at: this.tick() } });
  }

  async agent(taskId: string, event: AgentEventInput | { type: 'workspace'; [field: string]: unknown }): Promise<string> {
    return appendRunEvent(this.redis, this.keys, {
      run_id: this.runId,
      task_id: taskId,
      source: 'agent',
      event: { ...event, at: this.tick() },
    });
  }

  async created(repo = '/tmp/repo', base = 'a'.repeat(40)): Promise<void> {
    await this.run({
      type: 'run_created',
      task: 'add a discount to the cart',
      repo,
      base,
      integration_branch: `orca/${this.runId}/integration`,
      model: 'scripted',
      scripted: true,
      checks: ['npm test'],
    });
  }

  async task(taskId: string, dependsOn: string[] = [], role = 'worker'): Promise<void> {
    await this.run({
      type: 'task_created',
      task_id: taskId,
      role,
      title: `do ${taskId}`,
      depends_on: dependsOn,
      paths: [`src/${taskId}.ts`],
      checks: ['npm test'],
    });
  }

  async state(taskId: string, status: TaskStatus, attempt = 1, detail?: string): Promise<void> {
    await this.run({ type: 'task_state', task_id: taskId, status, attempt, job_id: `${this.runId}|${taskId}|${attempt}`, detail });
  }

  /** A worker takes the task's job: workspace, session, one turn that calls a tool, its usage. */
  async starts(taskId: string, options: { dir?: string; start?: string; usage?: Usage; cost?: number; host?: string } = {}): Promise<void> {
    await this.agent(taskId, {
      type: 'workspace',
      kind: 'branch',
      dir: options.dir ?? `/tmp/wt/${taskId}`,
      branch: `orca/${this.runId}/${taskId}`,
      start: options.start ?? 'a'.repeat(40),
      ports: [41000, 41001],
      ...(options.host ? { host: options.host } : {}),
    });
    await this.agent(taskId, {
      type: 'session_start',
      session_id: `${taskId}-s`,
      role: 'worker',
      model: 'scripted',
      scripted: true,
      cwd: `/tmp/wt/${taskId}`,
    });
    await this.agent(taskId, { type: 'turn_start', turn: 1 });
    const usage = options.usage ?? {
      input_tokens: 100,
      output_tokens: 20,
      cache_read_tokens: 30,
      cache_creation_tokens: 5,
      thinking_tokens: 0,
    };
    await this.agent(taskId, {
      type: 'usage',
      turn: 1,
      usage,
      cost_usd: options.cost ?? 0.01,
      total: usage,
      total_cost_usd: options.cost ?? 0.01,
    });
    await this.agent(taskId, { type: 'tool_call', turn: 1, id: 't1', name: 'Bash', input: { command: 'npm test -- cart' } });
  }

  /** The agent finishes with a Report and the coordinator records the job's result. */
  async finishes(taskId: string, commit = 'c'.repeat(40), transcript = `/tmp/sessions/${taskId}/transcript.jsonl`): Promise<void> {
    await this.agent(taskId, { type: 'tool_result', id: 't1', name: 'Bash', is_error: false, chars: 10, preview: 'ok', duration_ms: 5 });
    await this.agent(taskId, { type: 'turn_start', turn: 2 });
    await this.agent(taskId, {
      type: 'end',
      reason: 'report',
      detail: 'reported',
      turns: 2,
      usage: { input_tokens: 100, output_tokens: 20, cache_read_tokens: 30, cache_creation_tokens: 5, thinking_tokens: 0 },
      cost_usd: 0.01,
      report: { summary: 'done', unresolved: [], claimed_checks: [] },
    });
    await this.run({
      type: 'task_result',
      task_id: taskId,
      status: 'completed',
      end_reason: 'report',
      detail: 'reported',
      branch: `orca/${this.runId}/${taskId}`,
      commit,
      worktree: `/tmp/wt/${taskId}`,
      transcript,
      host: 'host-1',
      pid: 4242,
      turns: 2,
      usage: { input_tokens: 100, output_tokens: 20, cache_read_tokens: 30, cache_creation_tokens: 5, thinking_tokens: 0 },
      cost_usd: 0.01,
    });
  }

  async merged(taskId: string, commit = 'd'.repeat(40)): Promise<void> {
    await this.run({ type: 'merge', task_id: taskId, outcome: 'merged', commit, files: [`src/${taskId}.ts`] });
    await this.state(taskId, 'merged');
  }

  private tick(): number {
    this.clock += 1_000;
    return this.clock;
  }
}
