import type { ChainableCommander } from 'ioredis';
import type { ZodError } from 'zod';
import { describeZodError } from '../../core/boundary/zodIssues.js';
import { AgentEventSchema, type AgentEvent, type EndReason } from '../../core/events/agentEvent.js';
import { RunEventSchema, type RunEvent, type TaskStatus } from '../../core/events/runEvent.js';
import type { Usage } from '../../core/model/usage.js';
import type { Keys } from '../redis/keys.js';
import type { RunStreamEntry } from '../../core/events/runStreamEntry.js';
import type { Evidence, RunNote } from './boardSchemas.js';
import { ENDED } from '../../core/events/taskStatusGroups.js';
import { describeToolCall } from './toolActivity.js';
import { WorkspaceEventSchema, type WorkspaceEvent } from './workspaceEvent.js';

/**
 * The board's state is a projection of the run's event stream: this file is the only writer of
 * the run and task hashes, and it writes them from one stream entry at a time, in the same MULTI
 * as the XADD that records the entry (runEvents.ts). So the hashes never say what the stream does
 * not, and they outlive any process that wrote them.
 *
 * Every write here depends only on the entry, never on what the hashes held before: counters are
 * incremented, first-seen times are set with HSETNX, the rest is overwritten.
 */

/** Evidence and notes kept per list; a run that checks more than this keeps the latest. */
const LIST_MAX = 500;
const LAST_TEXT_MAX = 200;

const AGENT_EVENT_TYPES = new Set<string>(AgentEventSchema.options.map((option) => option.shape.type.value));
const RUN_EVENT_TYPES = new Set<string>(RunEventSchema.options.map((option) => option.shape.type.value));

type BoardEvent =
  | { source: 'run'; event: RunEvent }
  | { source: 'agent'; event: AgentEvent }
  | { source: 'workspace'; event: WorkspaceEvent }
  /** A type this version does not know (a newer worker's): it is kept on the stream, and only marks the run as alive. */
  | { source: 'unknown'; event: { type: string; at: number } };

/** The entry's event, checked against its schema; a known type that does not match is an error naming the field. */
export function parseBoardEvent(entry: RunStreamEntry): BoardEvent {
  const { type } = entry.event;
  const subject = `${entry.source} event ${type} of run ${entry.run_id}`;
  const check = <T>(result: { success: true; data: T } | { success: false; error: ZodError }): T => {
    if (!result.success) throw new Error(describeZodError(result.error, subject));
    return result.data;
  };
  if (entry.source === 'run' && RUN_EVENT_TYPES.has(type)) return { source: 'run', event: check(RunEventSchema.safeParse(entry.event)) };
  if (entry.source === 'agent' && type === 'workspace') return { source: 'workspace', event: check(WorkspaceEventSchema.safeParse(entry.event)) };
  if (entry.source === 'agent' && AGENT_EVENT_TYPES.has(type)) return { source: 'agent', event: check(AgentEventSchema.safeParse(entry.event)) };
  return { source: 'unknown', event: entry.event };
}

/** Adds to `tx` the writes that apply one stream entry to the board's hashes. */
export function projectEntry(tx: ChainableCommander, keys: Keys, entry: RunStreamEntry): void {
  const parsed = parseBoardEvent(entry);
  const project = new Projection(tx, keys, entry.run_id, parsed.event.at);
  project.touchRun();
  const taskId = parsed.source === 'run' ? ('task_id' in parsed.event ? parsed.event.task_id : undefined) : entry.task_id;
  if (taskId !== undefined) project.touchTask(taskId);

  if (parsed.source === 'run') project.runEvent(parsed.event);
  else if (parsed.source === 'workspace' && taskId !== undefined) project.workspace(taskId, parsed.event);
  else if (parsed.source === 'agent' && taskId !== undefined) project.agentEvent(taskId, parsed.event);
}

type Fields = Record<string, string | number | boolean | undefined>;

class Projection {
  constructor(
    private readonly tx: ChainableCommander,
    private readonly keys: Keys,
    private readonly runId: string,
    private readonly at: number,
  ) {}

  touchRun(): void {
    this.tx.zadd(this.keys.runs(), 'NX', this.at, this.runId);
    this.tx.hset(this.keys.run(this.runId), { run_id: this.runId, updated_at: this.at });
    this.tx.hsetnx(this.keys.run(this.runId), 'created_at', this.at);
  }

  touchTask(taskId: string): void {
    this.tx.zadd(this.keys.runTasks(this.runId), 'NX', this.at, taskId);
    this.setTask(taskId, { run_id: this.runId, task_id: taskId, updated_at: this.at });
    this.tx.hsetnx(this.task(taskId), 'created_at', this.at);
  }

  runEvent(event: RunEvent): void {
    switch (event.type) {
      case 'run_created':
        this.setRun({
          kind: 'run',
          task: event.task,
          repo: event.repo,
          base: event.base,
          integration_branch: event.integration_branch,
          model: event.model,
          scripted: event.scripted,
          checks: JSON.stringify(event.checks),
          status: 'running',
          created_at: event.at,
        });
        return;
      case 'run_phase':
        this.setRun({ phase: event.phase });
        this.setOrDelete(this.keys.run(this.runId), 'phase_detail', event.detail);
        return;
      case 'task_created':
        this.setTask(event.task_id, {
          role: event.role,
          title: event.title,
          depends_on: JSON.stringify(event.depends_on),
          paths: JSON.stringify(event.paths),
          checks: JSON.stringify(event.checks),
          status: 'pending',
          created_at: event.at,
        });
        return;
      case 'task_state':
        this.taskState(event);
        return;
      case 'task_result':
        this.setTask(event.task_id, {
          status: event.status,
          job_id: event.job_id,
          end_reason: event.end_reason,
          end_detail: event.detail,
          branch: event.branch,
          commit: event.commit,
          worktree: event.worktree,
          transcript: event.transcript,
          host: event.host,
          pid: event.pid,
          turns: event.turns,
        });
        this.tx.hsetnx(this.task(event.task_id), 'ended_at', event.at);
        if (event.status === 'failed') this.setTask(event.task_id, { error: event.detail });
        return;
      case 'merge':
        this.setTask(event.task_id, { merge_outcome: event.outcome, merge_commit: event.commit });
        this.setOrDelete(this.task(event.task_id), 'merge_detail', event.detail);
        if (event.outcome === 'merged' || event.outcome === 'resolved') this.setTask(event.task_id, { status: 'merged' });
        if (event.outcome === 'failed') this.setTask(event.task_id, { status: 'failed', error: event.detail ?? 'the merge failed' });
        return;
      case 'plan':
        for (const risk of event.risks) this.push(this.keys.runNotes(this.runId), { at: event.at, message: `risk: ${risk}` } satisfies RunNote);
        return;
      case 'approval':
        this.push(this.keys.runNotes(this.runId), { at: event.at, message: `plan ${event.approved ? 'approved' : 'rejected'} by ${event.by}` } satisfies RunNote);
        return;
      case 'dag_note':
        this.push(this.keys.runNotes(this.runId), { at: event.at, message: event.message, task_id: event.task_id } satisfies RunNote);
        return;
      case 'check':
        this.evidence(event.task_id, {
          kind: 'check',
          at: event.at,
          command: event.command,
          exit_code: event.exit_code,
          tests_executed: event.tests_executed,
          tree: event.tree,
          log: event.log,
        });
        return;
      case 'gate':
        this.evidence(event.task_id, { kind: 'gate', at: event.at, name: event.name, ok: event.ok, reason: event.reason });
        return;
      case 'verdict':
        this.setRun({ verdict: event.status, verdict_detail: event.detail });
        return;
      case 'run_end':
        this.setRun({ status: event.status, head: event.head, detail: event.detail, ended_at: event.at, ...usageFields(event.usage), cost_usd: event.cost_usd });
        return;
    }
  }

  agentEvent(taskId: string, event: AgentEvent): void {
    const key = this.task(taskId);
    switch (event.type) {
      case 'session_start':
        // A new session is a new attempt: what the last one ended with no longer describes the task.
        this.tx.hdel(key, 'ended_at', 'end_reason', 'end_detail', 'error', 'current_tool', 'verdict', 'last_text');
        this.setTask(taskId, { status: 'running', model: event.model, scripted: event.scripted });
        this.tx.hsetnx(key, 'role', event.role);
        // An `orca agent` run has no coordinator to count attempts: its one session is the first.
        this.tx.hsetnx(key, 'attempt', 1);
        this.tx.hsetnx(key, 'started_at', event.at);
        return;
      case 'turn_start':
        this.setTask(taskId, { turns: event.turn });
        this.tx.hdel(key, 'current_tool');
        return;
      case 'tool_call':
        this.setTask(taskId, { current_tool: describeToolCall(event.name, event.input) });
        this.tx.hincrby(key, 'tool_calls', 1);
        return;
      case 'assistant_text': {
        const line = event.text.trim().split('\n', 1)[0] ?? '';
        if (line) this.setTask(taskId, { last_text: line.length > LAST_TEXT_MAX ? `${line.slice(0, LAST_TEXT_MAX - 1)}…` : line });
        return;
      }
      case 'usage':
        // Per-turn usage is added, so a task's retries and the run's tasks sum without reading anything back.
        for (const target of [key, this.keys.run(this.runId)]) {
          for (const [field, value] of Object.entries(usageFields(event.usage))) if (value > 0) this.tx.hincrby(target, field, value);
          if (event.cost_usd > 0) this.tx.hincrbyfloat(target, 'cost_usd', event.cost_usd);
        }
        return;
      case 'notice':
        if (event.level === 'error') this.setTask(taskId, { error: event.message });
        return;
      case 'end': {
        const verdict = (event.report as { verdict?: unknown } | undefined)?.verdict;
        this.setTask(taskId, {
          status: statusAfter(event.reason),
          end_reason: event.reason,
          end_detail: event.detail,
          turns: event.turns,
          ended_at: event.at,
          verdict: typeof verdict === 'string' ? verdict : undefined,
        });
        if (event.reason !== 'report' && event.reason !== 'aborted') this.setTask(taskId, { error: event.detail });
        this.tx.hdel(key, 'current_tool');
        return;
      }
      default:
        return;
    }
  }

  workspace(taskId: string, event: WorkspaceEvent): void {
    this.setTask(taskId, {
      status: 'running',
      worktree: event.dir,
      workspace_kind: event.kind,
      branch: event.branch ?? undefined,
      start_commit: event.start,
      ports: JSON.stringify(event.ports),
      host: event.host,
      pid: event.pid,
    });
    this.tx.hsetnx(this.task(taskId), 'started_at', event.at);
  }

  private taskState(event: Extract<RunEvent, { type: 'task_state' }>): void {
    const key = this.task(event.task_id);
    if (event.status === 'queued') {
      // Queued again means a new attempt: its timings and its ending start afresh.
      this.tx.hdel(key, 'started_at', 'ended_at', 'end_reason', 'end_detail', 'error', 'current_tool');
      this.setTask(event.task_id, { queued_at: event.at });
    }
    this.setTask(event.task_id, { status: event.status, attempt: event.attempt, job_id: event.job_id });
    this.setOrDelete(key, 'status_detail', event.detail);
    if (event.status === 'running') this.tx.hsetnx(key, 'started_at', event.at);
    if (isEnded(event.status)) this.tx.hsetnx(key, 'ended_at', event.at);
    if ((event.status === 'failed' || event.status === 'blocked') && event.detail) this.setTask(event.task_id, { error: event.detail });
  }

  private evidence(taskId: string | undefined, evidence: Evidence): void {
    this.push(taskId === undefined ? this.keys.runEvidence(this.runId) : this.keys.taskEvidence(this.runId, taskId), evidence);
  }

  private push(list: string, value: object): void {
    this.tx.rpush(list, JSON.stringify(value));
    this.tx.ltrim(list, -LIST_MAX, -1);
  }

  private task(taskId: string): string {
    return this.keys.task(this.runId, taskId);
  }

  private setRun(fields: Fields): void {
    this.set(this.keys.run(this.runId), fields);
  }

  private setTask(taskId: string, fields: Fields): void {
    this.set(this.task(taskId), fields);
  }

  private set(key: string, fields: Fields): void {
    const present: Record<string, string | number> = {};
    for (const [field, value] of Object.entries(fields)) {
      if (value === undefined) continue;
      present[field] = typeof value === 'boolean' ? (value ? '1' : '0') : value;
    }
    if (Object.keys(present).length > 0) this.tx.hset(key, present);
  }

  private setOrDelete(key: string, field: string, value: string | undefined): void {
    if (value === undefined) this.tx.hdel(key, field);
    else this.tx.hset(key, field, value);
  }
}

function usageFields(usage: Usage): Record<keyof Usage, number> {
  return {
    input_tokens: usage.input_tokens,
    output_tokens: usage.output_tokens,
    cache_read_tokens: usage.cache_read_tokens,
    cache_creation_tokens: usage.cache_creation_tokens,
  };
}

function statusAfter(reason: EndReason): TaskStatus {
  if (reason === 'report') return 'completed';
  if (reason === 'aborted') return 'aborted';
  return 'failed';
}

function isEnded(status: TaskStatus): boolean {
  return ENDED.includes(status);
}
