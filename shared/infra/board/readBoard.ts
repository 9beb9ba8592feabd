import type { Redis } from 'ioredis';
import type { z } from 'zod';
import { describeZodError } from '../../core/boundary/zodIssues.js';
import { ENDED } from '../../core/events/taskStatusGroups.js';
import type { Keys } from '../redis/keys.js';
import {
  type Answer,
  AnswerSchema,
  type Ask,
  AskSchema,
  type Evidence,
  EvidenceSchema,
  type RunNote,
  RunNoteSchema,
  type RunState,
  RunStateSchema,
  type TaskState,
  TaskStateSchema,
} from './boardSchemas.js';

/**
 * Reading the board: the runs there are, and one run with its tasks, evidence and notes, as
 * the projection left them in Redis. Each read is one MULTI, so it is a consistent snapshot.
 */

export interface TaskView extends TaskState {
  /** What the task is doing now, in one line (the tool in flight, the model's turn, how it ended). */
  activity: string;
  evidence: Evidence[];
}

export interface RunView extends RunState {
  /** Where the run stands: `running`, how a coordinator run ended (PASS…), or how an `orca agent` run's agent ended. */
  state: string;
  /** Someone asked to abort the run (the abort is published; the run's own events say when it stopped). */
  abort_requested: boolean;
}

export interface RunBoard {
  run: RunView;
  tasks: TaskView[];
  /** Evidence about the run as a whole: integration checks and gates on the merged tree. */
  evidence: Evidence[];
  notes: RunNote[];
  /** Permission requests waiting for an answer, oldest first: their agents wait too. */
  asks: Ask[];
  /** Requests that were answered, oldest first, each with its (first) answer. */
  answered: AnsweredAsk[];
}

export interface AnsweredAsk extends Ask {
  answer: Answer;
}

export interface RunSummary extends RunView {
  task_count: number;
}

/** The newest runs first. */
export async function listRuns(redis: Redis, keys: Keys, limit = 50): Promise<RunSummary[]> {
  const ids = await redis.zrevrange(keys.runs(), 0, limit - 1);
  if (ids.length === 0) return [];
  const tx = redis.multi();
  for (const id of ids) tx.hgetall(keys.run(id)).zcard(keys.runTasks(id));
  tx.smismember(keys.aborted(), ...ids);
  const replies = results(await tx.exec());
  const aborted = replies[replies.length - 1] as number[];
  return ids.map((id, index) => {
    const run = parseHash(RunStateSchema, replies[index * 2], `run ${id}`);
    return { ...run, state: runState(run, []), abort_requested: aborted[index] === 1, task_count: replies[index * 2 + 1] as number };
  });
}

/** The id of the run created last, or undefined when there is none. */
export async function latestRunId(redis: Redis, keys: Keys): Promise<string | undefined> {
  const [id] = await redis.zrevrange(keys.runs(), 0, 0);
  return id;
}

/** One run as the board shows it, or undefined when Redis knows no such run. */
export async function readRunBoard(redis: Redis, keys: Keys, runId: string): Promise<RunBoard | undefined> {
  const taskIds = await redis.zrange(keys.runTasks(runId), 0, -1);
  const tx = redis.multi();
  tx.hgetall(keys.run(runId)).sismember(keys.aborted(), runId).lrange(keys.runEvidence(runId), 0, -1).lrange(keys.runNotes(runId), 0, -1);
  tx.hgetall(keys.runAsks(runId)).hgetall(keys.runAnswers(runId));
  for (const taskId of taskIds) tx.hgetall(keys.task(runId, taskId)).lrange(keys.taskEvidence(runId, taskId), 0, -1);
  const replies = results(await tx.exec());
  const runHash = replies[0] as Record<string, string>;
  if (Object.keys(runHash).length === 0) return undefined;

  const tasks = taskIds.map((taskId, index): TaskView => {
    const task = parseHash(TaskStateSchema, replies[6 + index * 2], `task ${taskId} of run ${runId}`);
    return {
      ...task,
      activity: activityOf(task),
      evidence: parseList(EvidenceSchema, replies[7 + index * 2], `evidence of task ${taskId}`),
    };
  });
  const run = parseHash(RunStateSchema, runHash, `run ${runId}`);
  const asks = parseValues(AskSchema, replies[4], `permission requests of run ${runId}`).sort((a, b) => a.at - b.at);
  const answers = new Map(
    parseValues(AnswerSchema, replies[5], `answers of run ${runId}`).map((answer) => [answer.request_id, answer] as const),
  );
  const byId = new Map(tasks.map((task) => [task.task_id, task]));
  return {
    run: { ...run, state: runState(run, tasks), abort_requested: replies[1] === 1 },
    tasks,
    evidence: parseList(EvidenceSchema, replies[2], `evidence of run ${runId}`),
    notes: parseList(RunNoteSchema, replies[3], `notes of run ${runId}`),
    asks: asks.filter((ask) => !answers.has(ask.id) && stillWaits(ask, byId.get(ask.task_id))),
    answered: asks.flatMap((ask) => {
      const answer = answers.get(ask.id);
      return answer ? [{ ...ask, answer }] : [];
    }),
  };
}

/**
 * An unanswered request still waits while its agent does: its task runs the session that asked.
 * A session that ended (aborted, or its worker died and another attempt began) asks nothing more.
 */
function stillWaits(ask: Ask, task: TaskState | undefined): boolean {
  if (task?.status !== 'running') return false;
  return ask.at >= (task.session_at ?? task.started_at ?? 0);
}

/**
 * A coordinator run says how it ended (`run_end`); until then it is running. An `orca agent` run
 * has one agent and no run events: it stands where its agent does.
 */
function runState(run: RunState, tasks: TaskState[]): string {
  if (run.status) return run.status;
  if (run.kind === 'run') return 'running';
  if (tasks.length === 0) return 'starting';
  const open = tasks.find((task) => !ENDED.includes(task.status));
  return open ? 'running' : tasks.map((task) => task.status).join(', ');
}

function activityOf(task: TaskState): string {
  if (task.status === 'pending') return task.depends_on.length > 0 ? `waits for ${task.depends_on.join(', ')}` : 'waiting';
  if (task.status === 'queued') return `queued (attempt ${task.attempt})`;
  if (ENDED.includes(task.status)) {
    if (task.error) return firstLine(task.error);
    if (task.merge_outcome) return `merge: ${task.merge_outcome}${task.merge_commit ? ` at ${task.merge_commit.slice(0, 12)}` : ''}`;
    if (task.verdict) return `verdict ${task.verdict}`;
    if (task.end_reason) return `ended: ${task.end_reason}`;
    return task.status_detail ? firstLine(task.status_detail) : task.status;
  }
  if (task.current_tool) return task.current_tool;
  if (task.turns > 0) return `model turn ${task.turns}`;
  return task.worktree ? 'starting the agent' : 'preparing its workspace';
}

function firstLine(text: string): string {
  const line = text.split('\n', 1)[0] ?? '';
  return line.length > 160 ? `${line.slice(0, 159)}…` : line;
}

function results(replies: Array<[Error | null, unknown]> | null): unknown[] {
  if (!replies) throw new Error('the board read was discarded by Redis');
  return replies.map(([error, value]) => {
    if (error) throw error;
    return value;
  });
}

function parseHash<T extends z.ZodType>(schema: T, hash: unknown, subject: string): z.output<T> {
  const parsed = schema.safeParse(hash);
  if (!parsed.success) throw new Error(describeZodError(parsed.error, `the board's state of ${subject}`));
  return parsed.data;
}

/** A hash of JSON values (requests, answers), each checked against its schema. */
function parseValues<T extends z.ZodType>(schema: T, hash: unknown, subject: string): Array<z.output<T>> {
  return Object.entries(hash as Record<string, string>).map(([field, value]) =>
    parseHash(schema, JSON.parse(value), `${subject} [${field}]`),
  );
}

function parseList<T extends z.ZodType>(schema: T, items: unknown, subject: string): Array<z.output<T>> {
  return (items as string[]).map((item, index) => parseHash(schema, JSON.parse(item), `${subject} [${index}]`));
}
