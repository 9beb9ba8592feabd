import type { RunEvent } from '../../core/events/runEvent.js';
import type { Usage } from '../../core/model/usage.js';
import type { Answer, Ask, Evidence, RunNote, RunState, TaskState } from './boardSchemas.js';

/**
 * What one entry of a run's stream changes in the run, as runReducer.ts says it: changes to the
 * run's record and its tasks' records, and items added to its lists. The records are the board's
 * (boardSchemas.ts) plus what only the coordinator keeps.
 *
 * No change depends on what a record held before (fields are overwritten, set once, removed, or
 * summed), so the board applies them in Redis without reading anything back, in the same MULTI
 * as the entry (projectEvent.ts), and the coordinator applies them in memory (runFold.ts).
 */

/** What the coordinator needs to carry the run on (`orca resume`), which the board does not show. */
export interface CoordinatorRunFields {
  settings?: Extract<RunEvent, { type: 'run_created' }>['settings'];
  findings?: Extract<RunEvent, { type: 'findings' }>;
  plan?: Extract<RunEvent, { type: 'plan' }>;
  approved?: boolean;
  /** When the last merge into the integration branch was recorded (ms); 0 before the first. */
  last_merge_at: number;
  /** What the recorded job results spent (task_result): the run's own account, which its end reports. */
  result_usage: Usage;
  result_cost_usd: number;
}

export interface CoordinatorTaskFields {
  /** The job whose result is recorded (so a resumed run never counts one twice). */
  result_job_id?: string;
  /** What this task's recorded job results spent, over its attempts. */
  result_usage: Usage;
  result_cost_usd: number;
}

/** Every field of the coordinator's own, so the board knows what is not on its hashes. */
export const COORDINATOR_FIELDS: ReadonlySet<string> = new Set(
  Object.keys({
    settings: 0,
    findings: 0,
    plan: 0,
    approved: 0,
    last_merge_at: 0,
    result_usage: 0,
    result_cost_usd: 0,
    result_job_id: 0,
  } satisfies Record<keyof CoordinatorRunFields | keyof CoordinatorTaskFields, 0>),
);

export type RunRecord = RunState & CoordinatorRunFields;
export type TaskRecord = TaskState & CoordinatorTaskFields & { evidence: Evidence[] };

/** Evidence and notes kept per list; a run that checks more than this keeps the latest. */
export const LIST_MAX = 500;

type OptionalKeys<R> = { [K in keyof R]-?: undefined extends R[K] ? K : never }[keyof R];

/** The fields that are summed, never set (HINCRBY on the board). */
export type RunSums = Pick<RunRecord, 'usage' | 'cost_usd' | 'result_usage' | 'result_cost_usd'>;
export type TaskSums = Pick<TaskRecord, 'usage' | 'cost_usd' | 'tool_calls' | 'result_usage' | 'result_cost_usd'>;

export type RecordChange<R, Sums> =
  /** The record is in the run (the first touch lists it): updated now, created at the first touch. */
  | { op: 'touch'; at: number }
  /** Overwrites these fields; an undefined one is left as it is. */
  | { op: 'set'; fields: Partial<R> }
  /** Sets these fields unless they are set already (a field at the value the board reads for an absent one counts as not set). */
  | { op: 'setOnce'; fields: Partial<R> }
  | { op: 'unset'; fields: ReadonlyArray<OptionalKeys<R>> }
  | { op: 'add'; fields: Partial<Sums> };

export type RunChange =
  | ({ on: 'run' } & RecordChange<RunRecord, RunSums>)
  | ({ on: 'task'; task_id: string } & RecordChange<TaskRecord, TaskSums>)
  | { on: 'note'; note: RunNote }
  /** Evidence about one task, or about the run as a whole when `task_id` is undefined. */
  | { on: 'evidence'; task_id: string | undefined; evidence: Evidence }
  /** A permission request, kept by its id. */
  | { on: 'ask'; ask: Ask }
  /** An answer to a request: kept only when the request has none yet (the first answer wins). */
  | { on: 'answer'; answer: Answer };
