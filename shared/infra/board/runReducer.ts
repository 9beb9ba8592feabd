import type { AgentEvent, EndReason } from '../../core/events/agentEvent.js';
import type { RunEvent, TaskStatus } from '../../core/events/runEvent.js';
import type { RunStreamEntry } from '../../core/events/runStreamEntry.js';
import { ENDED } from '../../core/events/taskStatusGroups.js';
import { parseBoardEvent } from './boardEvent.js';
import type { Answer, Ask, Evidence, RunNote } from './boardSchemas.js';
import type { RecordChange, RunChange, RunRecord, RunSums, TaskRecord, TaskSums } from './runChange.js';
import { describeToolCall } from './toolActivity.js';
import type { WorkspaceEvent } from './workspaceEvent.js';

/**
 * The one set of rules by which a run's stream makes its state: what each entry (a run event, an
 * agent's event, a worker's workspace event) changes. The board writes these changes to Redis
 * (projectEvent.ts) and the coordinator to its memory (runFold.ts), so the two cannot disagree
 * about what an event means. Each entry's changes depend on that entry alone (runChange.ts).
 */
export function reduceRunEntry(entry: RunStreamEntry): RunChange[] {
  const parsed = parseBoardEvent(entry);
  const changes = new Changes();
  changes.run({ op: 'touch', at: parsed.event.at });
  const taskId = parsed.source === 'run' ? ('task_id' in parsed.event ? parsed.event.task_id : undefined) : entry.task_id;
  if (taskId !== undefined) changes.task(taskId, { op: 'touch', at: parsed.event.at });

  if (parsed.source === 'run') runEvent(changes, parsed.event);
  else if (parsed.source === 'workspace' && taskId !== undefined) workspace(changes, taskId, parsed.event);
  else if (parsed.source === 'agent' && taskId !== undefined) agentEvent(changes, taskId, parsed.event);
  return changes.list;
}

const LAST_TEXT_MAX = 200;

class Changes {
  readonly list: RunChange[] = [];

  run(change: RecordChange<RunRecord, RunSums>): void {
    this.list.push({ on: 'run', ...change });
  }

  task(taskId: string, change: RecordChange<TaskRecord, TaskSums>): void {
    this.list.push({ on: 'task', task_id: taskId, ...change });
  }

  setRun(fields: Partial<RunRecord>): void {
    this.run({ op: 'set', fields });
  }

  setTask(taskId: string, fields: Partial<TaskRecord>): void {
    this.task(taskId, { op: 'set', fields });
  }

  note(note: RunNote): void {
    this.list.push({ on: 'note', note });
  }

  evidence(taskId: string | undefined, evidence: Evidence): void {
    this.list.push({ on: 'evidence', task_id: taskId, evidence });
  }

  ask(ask: Ask): void {
    this.list.push({ on: 'ask', ask });
  }

  answer(answer: Answer): void {
    this.list.push({ on: 'answer', answer });
  }
}

/** What each kind of run event changes: one function a kind, so a new kind must say what it changes (the type requires every one). */
type RunEventChanges = { [Type in RunEvent['type']]: (changes: Changes, event: Extract<RunEvent, { type: Type }>) => void };

const RUN_EVENT_CHANGES: RunEventChanges = {
  run_created: (changes, event) =>
    changes.setRun({
      kind: 'run',
      task: event.task,
      repo: event.repo,
      base: event.base,
      integration_branch: event.integration_branch,
      model: event.model,
      scripted: event.scripted,
      checks: event.checks,
      status: 'running',
      created_at: event.at,
      settings: event.settings,
    }),
  run_phase: (changes, event) => {
    changes.setRun({ phase: event.phase });
    if (event.detail === undefined) changes.run({ op: 'unset', fields: ['phase_detail'] });
    else changes.setRun({ phase_detail: event.detail });
  },
  findings: (changes, event) =>
    changes.setRun({
      findings: event,
      facts: event.facts.map(({ fact, evidence, verified, reason }) => ({ fact, evidence, verified, ...(reason ? { reason } : {}) })),
      files_read: event.files.map(({ path, partial, verified, reason }) => ({ path, partial, verified, ...(reason ? { reason } : {}) })),
    }),
  plan: (changes, event) => {
    changes.setRun({ plan: event });
    for (const risk of event.risks) changes.note({ at: event.at, message: `risk: ${risk}` });
  },
  approval: (changes, event) => {
    changes.setRun({ approved: event.approved });
    changes.note({ at: event.at, message: `plan ${event.approved ? 'approved' : 'rejected'} by ${event.by}` });
  },
  task_created: (changes, event) =>
    changes.setTask(event.task_id, {
      role: event.role,
      title: event.title,
      depends_on: event.depends_on,
      paths: event.paths,
      checks: event.checks,
      status: 'pending',
      created_at: event.at,
    }),
  task_state: (changes, event) => taskState(changes, event),
  task_result: (changes, event) => taskResult(changes, event),
  memory_filed: (changes, event) => changes.note({ at: event.at, message: `memory (${event.task_id}): ${event.detail}` }),
  merge: (changes, event) => merge(changes, event),
  dag_note: (changes, event) => changes.note({ at: event.at, message: event.message, task_id: event.task_id }),
  check: (changes, event) =>
    changes.evidence(event.task_id, {
      kind: 'check',
      at: event.at,
      command: event.command,
      exit_code: event.exit_code,
      tests_executed: event.tests_executed,
      tree: event.tree,
      log: event.log,
    }),
  gate: (changes, event) =>
    changes.evidence(event.task_id, { kind: 'gate', at: event.at, name: event.name, ok: event.ok, reason: event.reason }),
  permission_answer: (changes, event) => {
    const { type: _type, ...answer } = event;
    changes.answer(answer);
  },
  problems: (changes, event) => changes.setRun({ problems: event.problems }),
  verdict: (changes, event) => changes.setRun({ verdict: event.status, verdict_detail: event.detail }),
  run_end: (changes, event) => {
    // An ended run is in no phase of its work any more, whichever it was in when it stopped.
    changes.run({ op: 'unset', fields: ['phase_detail'] });
    changes.setRun({
      phase: 'done',
      status: event.status,
      head: event.head,
      detail: event.detail,
      ended_at: event.at,
      usage: event.usage,
      cost_usd: event.cost_usd,
    });
  },
};

function runEvent(changes: Changes, event: RunEvent): void {
  // TypeScript cannot pair a union's member with its own entry of the table: the table's type does.
  (RUN_EVENT_CHANGES[event.type] as (changes: Changes, event: RunEvent) => void)(changes, event);
}

function taskResult(changes: Changes, event: Extract<RunEvent, { type: 'task_result' }>): void {
  changes.setTask(event.task_id, {
    status: event.status,
    job_id: event.job_id,
    result_job_id: event.job_id,
    end_reason: event.end_reason,
    end_detail: event.detail,
    branch: event.branch,
    commit: event.commit,
    worktree: event.worktree,
    transcript: event.transcript,
    host: event.host,
    pid: event.pid,
    turns: event.turns,
    sandbox: event.sandbox,
    agent: event.agent,
  });
  changes.task(event.task_id, { op: 'setOnce', fields: { ended_at: event.at } });
  if (event.status === 'failed') changes.setTask(event.task_id, { error: event.detail });
  // The job's own account of what it spent, summed over attempts and tasks (the agents' turns are summed apart, from their usage events).
  const spent = { result_usage: event.usage, result_cost_usd: event.cost_usd };
  changes.task(event.task_id, { op: 'add', fields: spent });
  changes.run({ op: 'add', fields: spent });
}

function merge(changes: Changes, event: Extract<RunEvent, { type: 'merge' }>): void {
  changes.setTask(event.task_id, { merge_outcome: event.outcome, merge_commit: event.commit });
  if (event.detail === undefined) changes.task(event.task_id, { op: 'unset', fields: ['merge_detail'] });
  else changes.setTask(event.task_id, { merge_detail: event.detail });
  // The merge is the fact: a task whose branch is in the integration branch is merged, whatever was recorded after.
  if (event.outcome === 'merged' || event.outcome === 'resolved') {
    changes.setTask(event.task_id, { status: 'merged', merged_at: event.at });
    if (event.commit) changes.setRun({ last_merge_at: event.at });
  }
  if (event.outcome === 'failed' || event.outcome === 'refused' || event.outcome === 'rolled_back')
    changes.setTask(event.task_id, { status: 'failed', error: event.detail ?? 'the merge failed' });
  // Moving the branch back changes the integration tree as a merge does: evidence older than it is stale.
  if (event.outcome === 'rolled_back') changes.setRun({ last_merge_at: event.at });
}

function taskState(changes: Changes, event: Extract<RunEvent, { type: 'task_state' }>): void {
  const id = event.task_id;
  if (event.status === 'queued') {
    // Queued again means a new attempt: its timings and its ending start afresh.
    changes.task(id, { op: 'unset', fields: ['started_at', 'ended_at', 'end_reason', 'end_detail', 'error', 'current_tool'] });
    changes.setTask(id, { queued_at: event.at });
  }
  changes.setTask(id, { status: event.status, attempt: event.attempt, job_id: event.job_id });
  if (event.detail === undefined) changes.task(id, { op: 'unset', fields: ['status_detail'] });
  else changes.setTask(id, { status_detail: event.detail });
  if (event.status === 'running') changes.task(id, { op: 'setOnce', fields: { started_at: event.at } });
  if (ENDED.includes(event.status)) changes.task(id, { op: 'setOnce', fields: { ended_at: event.at } });
  if ((event.status === 'failed' || event.status === 'blocked') && event.detail) changes.setTask(id, { error: event.detail });
}

function agentEvent(changes: Changes, taskId: string, event: AgentEvent): void {
  switch (event.type) {
    case 'session_start':
      // A new session is a new attempt: what the last one ended with no longer describes the task.
      changes.task(taskId, {
        op: 'unset',
        fields: ['ended_at', 'end_reason', 'end_detail', 'error', 'current_tool', 'verdict', 'last_text'],
      });
      changes.setTask(taskId, { status: 'running', model: event.model, scripted: event.scripted, session_at: event.at });
      // An `orca agent` run has no coordinator to count attempts: its one session is the first.
      changes.task(taskId, { op: 'setOnce', fields: { role: event.role } });
      changes.task(taskId, { op: 'setOnce', fields: { attempt: 1 } });
      changes.task(taskId, { op: 'setOnce', fields: { started_at: event.at } });
      return;
    case 'turn_start':
      changes.setTask(taskId, { turns: event.turn });
      changes.task(taskId, { op: 'unset', fields: ['current_tool'] });
      return;
    case 'tool_call':
      changes.setTask(taskId, { current_tool: describeToolCall(event.name, event.input) });
      changes.task(taskId, { op: 'add', fields: { tool_calls: 1 } });
      return;
    case 'assistant_text': {
      const line = event.text.trim().split('\n', 1)[0] ?? '';
      if (line) changes.setTask(taskId, { last_text: line.length > LAST_TEXT_MAX ? `${line.slice(0, LAST_TEXT_MAX - 1)}…` : line });
      return;
    }
    case 'usage': {
      // Per-turn usage is added, so a task's retries and the run's tasks sum without reading anything back.
      const spent = event.cost_usd > 0 ? { usage: event.usage, cost_usd: event.cost_usd } : { usage: event.usage };
      changes.task(taskId, { op: 'add', fields: spent });
      changes.run({ op: 'add', fields: spent });
      return;
    }
    case 'notice':
      if (event.level === 'error') changes.setTask(taskId, { error: event.message });
      return;
    case 'setup':
      // Shown as the task's evidence, with its log's tail, like a check.
      changes.evidence(taskId, {
        kind: 'check',
        at: event.at,
        command: `setup: ${event.command}`,
        exit_code: event.exit_code,
        tests_executed: null,
        tree: event.tree,
        log: event.log,
      });
      if (event.outcome !== 'ok') changes.setTask(taskId, { error: `setup \`${event.command}\` ${event.outcome}: ${event.tail ?? ''}` });
      return;
    case 'permission_request': {
      const { type: _type, ...request } = event;
      changes.ask({ ...request, task_id: taskId });
      return;
    }
    case 'end': {
      const verdict = (event.report as { verdict?: unknown } | undefined)?.verdict;
      changes.setTask(taskId, {
        status: statusAfter(event.reason),
        end_reason: event.reason,
        end_detail: event.detail,
        turns: event.turns,
        ended_at: event.at,
        verdict: typeof verdict === 'string' ? verdict : undefined,
      });
      if (event.reason !== 'report' && event.reason !== 'aborted') changes.setTask(taskId, { error: event.detail });
      changes.task(taskId, { op: 'unset', fields: ['current_tool'] });
      return;
    }
    default:
      return;
  }
}

function workspace(changes: Changes, taskId: string, event: WorkspaceEvent): void {
  changes.setTask(taskId, {
    status: 'running',
    worktree: event.dir,
    workspace_kind: event.kind,
    branch: event.branch ?? undefined,
    start_commit: event.start,
    ports: event.ports,
    host: event.host,
    pid: event.pid,
    slot: event.slot,
    sandbox: event.sandbox,
    agent: event.agent,
  });
  changes.task(taskId, { op: 'setOnce', fields: { started_at: event.at } });
}

function statusAfter(reason: EndReason): TaskStatus {
  if (reason === 'report') return 'completed';
  if (reason === 'aborted') return 'aborted';
  return 'failed';
}
