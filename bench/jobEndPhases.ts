import type { RunStreamEntry } from '../shared/core/events/runStreamEntry.js';
import { AgentJobResultSchema } from '../shared/infra/queue/agentJob.js';
import type { AgentQueue } from '../shared/infra/queue/agentQueue.js';
import { median, round } from './stats.js';

/**
 * Where a worker job's time from its last model call answered to its result recorded went, each
 * step read from a stamp (ms since the epoch, one host's clock): the last turn's tools' results
 * (the bench's check in the sandbox and the watch after it, then the Report and its gates), the
 * agent's `end` event, the session
 * returned (closing hooks, MCP and language servers stopped, the transcript written), the Report
 * judged, the work committed, the result handed to the queue (the events flushed, and whatever the
 * worker does before it), the job completed in BullMQ (`finishedOn`), the coordinator's
 * `task_result` (its waiter woken, the job read, the result recorded).
 */
export interface JobEndPhases {
  /** The last call answered → its other tools' last result (the bench's check, run in the sandbox; the watch after it). */
  last_tools_ms: number;
  /** → the Report's result (its gates). */
  report_ms: number;
  /** → the agent's `end` event. */
  to_end_ms: number;
  session_close_ms: number;
  judge_ms: number;
  commit_ms: number;
  to_publish_ms: number;
  queue_ms: number;
  record_ms: number;
}

const PHASES: Array<keyof JobEndPhases> = [
  'last_tools_ms',
  'report_ms',
  'to_end_ms',
  'session_close_ms',
  'judge_ms',
  'commit_ms',
  'to_publish_ms',
  'queue_ms',
  'record_ms',
];

/** The p50 of each phase over the jobs of `tasks` in the run whose stream is `events`; a job without its stamps is an error. */
export async function jobEndPhases(queue: AgentQueue, events: RunStreamEntry[], tasks: ReadonlySet<string>): Promise<JobEndPhases> {
  const lastUsage = new Map<string, number>();
  const ended = new Map<string, number>();
  const lastTool = new Map<string, number>();
  const reported = new Map<string, number>();
  const recorded = new Map<string, { at: number; jobId: string }>();
  for (const { task_id: agentTask, source, event } of events) {
    const task = agentTask ?? (typeof event.task_id === 'string' ? event.task_id : undefined);
    if (!task || !tasks.has(task)) continue;
    if (source === 'agent' && event.type === 'usage') lastUsage.set(task, event.at);
    if (source === 'agent' && event.type === 'end') ended.set(task, event.at);
    if (source === 'agent' && event.type === 'tool_result') (event.name === 'Report' ? reported : lastTool).set(task, event.at);
    if (source === 'run' && event.type === 'task_result' && typeof event.job_id === 'string')
      recorded.set(task, { at: event.at, jobId: event.job_id });
  }
  const all: JobEndPhases[] = [];
  for (const task of tasks) {
    const result = recorded.get(task);
    if (!result) throw new Error(`task ${task} has no task_result: its end cannot be split`);
    const job = await queue.getJob(result.jobId);
    const steps = AgentJobResultSchema.shape.end_steps.parse(job?.returnvalue?.end_steps);
    const { session, judged, committed, published } = steps ?? {};
    const finished = job?.finishedOn;
    if (!session || !judged || !committed || !published || !finished)
      throw new Error(`job ${result.jobId} of task ${task} carries no end steps`);
    if (!lastUsage.has(task) || !reported.has(task) || !ended.has(task))
      throw new Error(`task ${task} has no model call, Report or end on the run's stream: its end cannot be split`);
    // A last turn with no tool but its Report: its other tools took no time.
    const toolsDone = Math.max(lastTool.get(task) ?? 0, lastUsage.get(task)!);
    all.push({
      last_tools_ms: toolsDone - lastUsage.get(task)!,
      report_ms: reported.get(task)! - toolsDone,
      to_end_ms: ended.get(task)! - reported.get(task)!,
      session_close_ms: session - ended.get(task)!,
      judge_ms: judged - session,
      commit_ms: committed - judged,
      to_publish_ms: published - committed,
      queue_ms: finished - published,
      record_ms: result.at - finished,
    });
  }
  return medianEndPhases(all);
}

/** The median of each phase. */
export function medianEndPhases(all: JobEndPhases[]): JobEndPhases {
  return Object.fromEntries(PHASES.map((key) => [key, round(median(all.map((phases) => phases[key])))])) as unknown as JobEndPhases;
}

/** One line for a figure's note. */
export function endPhasesText(phases: JobEndPhases): string {
  return (
    `last call → its tools ${phases.last_tools_ms} ms, the Report ${phases.report_ms}, its end ${phases.to_end_ms}, session closed ${phases.session_close_ms}, Report judged ${phases.judge_ms}, ` +
    `committed ${phases.commit_ms}, to the result published ${phases.to_publish_ms}, completed in the queue ${phases.queue_ms}, ` +
    `recorded by the coordinator ${phases.record_ms}`
  );
}
