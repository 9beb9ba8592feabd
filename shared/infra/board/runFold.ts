import type { RunStreamEntry } from '../../core/events/runStreamEntry.js';
import { addUsage, emptyUsage, type Usage } from '../../core/model/usage.js';
import type { Answer, Ask, Evidence, RunNote } from './boardSchemas.js';
import { LIST_MAX, type RecordChange, type RunChange, type RunRecord, type TaskRecord } from './runChange.js';
import { reduceRunEntry } from './runReducer.js';

/**
 * A run's state in memory: what its stream's entries fold into by the rules of runReducer.ts,
 * the same the board applies to its hashes. The coordinator keeps one for the run it drives.
 */
export interface RunFold {
  run: RunRecord;
  /** In the order their tasks first appeared on the stream. */
  tasks: Map<string, TaskRecord>;
  /** Evidence about the run as a whole: integration checks and gates on the merged tree. */
  evidence: Evidence[];
  notes: RunNote[];
  /** Permission requests by id, and the first answer to each. */
  asks: Map<string, Ask>;
  answers: Map<string, Answer>;
}

export function emptyRunFold(runId: string): RunFold {
  return { run: blankRun(runId), tasks: new Map(), evidence: [], notes: [], asks: new Map(), answers: new Map() };
}

export function foldRunEntry(state: RunFold, entry: RunStreamEntry): void {
  applyRunChanges(state, reduceRunEntry(entry));
}

export function applyRunChanges(state: RunFold, changes: readonly RunChange[]): void {
  for (const change of changes) {
    switch (change.on) {
      case 'run':
        applyChange(state.run, blankRun(state.run.run_id), change);
        break;
      case 'task': {
        if (change.op === 'touch' && !state.tasks.has(change.task_id))
          state.tasks.set(change.task_id, blankTask(state.run.run_id, change.task_id));
        applyChange(taskOf(state, change.task_id), blankTask(state.run.run_id, change.task_id), change);
        break;
      }
      case 'note':
        keep(state.notes, change.note);
        break;
      case 'evidence':
        keep(change.task_id === undefined ? state.evidence : taskOf(state, change.task_id).evidence, change.evidence);
        break;
      case 'ask':
        state.asks.set(change.ask.id, change.ask);
        break;
      case 'answer':
        if (!state.answers.has(change.answer.request_id)) state.answers.set(change.answer.request_id, change.answer);
        break;
    }
  }
}

/** What the board reads for a run hash that holds only its id (boardSchemas.ts), and the coordinator's starting values. */
function blankRun(runId: string): RunRecord {
  return {
    run_id: runId,
    kind: 'agent',
    scripted: false,
    checks: [],
    facts: [],
    files_read: [],
    problems: [],
    usage: emptyUsage(),
    cost_usd: 0,
    last_merge_at: 0,
    result_usage: emptyUsage(),
    result_cost_usd: 0,
  };
}

/** What the board reads for a task hash that holds only its ids (boardSchemas.ts), and the coordinator's starting values. */
function blankTask(runId: string, taskId: string): TaskRecord {
  return {
    run_id: runId,
    task_id: taskId,
    role: '?',
    depends_on: [],
    paths: [],
    checks: [],
    status: 'pending',
    attempt: 0,
    ports: [],
    scripted: false,
    turns: 0,
    tool_calls: 0,
    usage: emptyUsage(),
    cost_usd: 0,
    evidence: [],
    result_usage: emptyUsage(),
    result_cost_usd: 0,
  };
}

function taskOf(state: RunFold, taskId: string): TaskRecord {
  const task = state.tasks.get(taskId);
  // The reducer touches a task before any other change to it: a change to an untouched one is a bug there.
  if (!task) throw new Error(`run ${state.run.run_id}: a change to task ${taskId} came before the task was touched`);
  return task;
}

function applyChange<R extends object, Sums>(record: R, blank: R, change: RecordChange<R, Sums>): void {
  const fields = record as Record<string, unknown>;
  const initial = blank as Record<string, unknown>;
  switch (change.op) {
    case 'touch':
      fields.updated_at = change.at;
      fields.created_at ??= change.at;
      return;
    case 'set':
      for (const [field, value] of Object.entries(change.fields)) if (value !== undefined) fields[field] = value;
      return;
    case 'setOnce':
      for (const [field, value] of Object.entries(change.fields)) {
        if (value !== undefined && (fields[field] === undefined || fields[field] === initial[field])) fields[field] = value;
      }
      return;
    case 'unset':
      for (const field of change.fields) delete fields[field as string];
      return;
    case 'add':
      for (const [field, amount] of Object.entries(change.fields as object)) {
        fields[field] = typeof amount === 'number' ? (fields[field] as number) + amount : addUsage(fields[field] as Usage, amount as Usage);
      }
      return;
  }
}

function keep<T>(list: T[], item: T): void {
  list.push(item);
  if (list.length > LIST_MAX) list.splice(0, list.length - LIST_MAX);
}
