import { describeZodError } from '../../../shared/core/boundary/zodIssues.js';
import { NOT_STARTED } from '../../../shared/core/events/taskStatusGroups.js';
import type { Evidence } from '../../../shared/infra/board/boardSchemas.js';
import type { RunBoard, TaskView } from '../../../shared/infra/board/readBoard.js';
import { AgentJobSchema } from '../../../shared/infra/queue/agentJob.js';
import { type AgentQueue, agentJobId, parseJobResult } from '../../../shared/infra/queue/agentQueue.js';
import { fileTail } from './fileTail.js';
import { type TaskDiff, taskDiff } from './taskDiff.js';
import { type TranscriptLine, transcriptTail } from './transcriptTail.js';

const LOG_TAIL_BYTES = 16 * 1024;

/** Something the detail cannot show, and why (a file on another host, a task with no commit yet). */
export interface Missing {
  missing: string;
}

export interface TaskDetail {
  task: TaskView;
  transcript: ({ path: string; lines: TranscriptLine[]; cut: boolean } & { missing?: undefined }) | (Missing & { path?: string });
  diff: (TaskDiff & { repo: string; missing?: undefined }) | Missing;
  evidence: Array<Evidence & { log_tail?: string; log_missing?: string }>;
}

/**
 * A task's detail for the web board: the tail of its transcript, its diff and its evidence with
 * the tail of each check's log. Where the run's events do not name a file or commit (an
 * `orca agent` run has no coordinator to record the job's result), the job itself is asked.
 */
export async function readTaskDetail(board: RunBoard, task: TaskView, queue: AgentQueue): Promise<TaskDetail> {
  const job = await jobFacts(board, task, queue);
  const transcriptPath = task.transcript ?? job.transcript;
  const repo = board.run.repo ?? job.repo;
  // The job's base, not where its workspace started: an attempt that took over a dead one's
  // commits starts from them, and the task's change is all of it.
  const base = job.base ?? task.start_commit ?? board.run.base;
  const commit = task.commit ?? job.commit;

  return {
    task,
    transcript: transcriptPath ? await readTranscript(transcriptPath, task) : { missing: transcriptMissing(task) },
    diff: await readDiff(repo, base, commit, task),
    evidence: await Promise.all(task.evidence.map(withLogTail)),
  };
}

interface JobFacts {
  transcript?: string;
  repo?: string;
  base?: string;
  commit?: string;
}

async function jobFacts(board: RunBoard, task: TaskView, queue: AgentQueue): Promise<JobFacts> {
  if (task.attempt === 0) return {};
  const jobId = task.job_id ?? agentJobId(board.run.run_id, task.task_id, task.attempt);
  const job = await queue.getJob(jobId);
  if (!job) return {};
  const data = AgentJobSchema.pick({ repo: true, base: true }).safeParse(job.data);
  if (!data.success) throw new Error(describeZodError(data.error, `the payload of job ${jobId}`));
  const facts: JobFacts = { repo: data.data.repo.path, base: data.data.base };
  if (job.returnvalue) {
    const result = parseJobResult(job.returnvalue, jobId);
    Object.assign(facts, { transcript: result.transcript, commit: result.commit });
  }
  return facts;
}

async function readTranscript(path: string, task: TaskView): Promise<TaskDetail['transcript']> {
  try {
    return { path, ...(await transcriptTail(path)) };
  } catch (error) {
    return { path, missing: fileMissing(path, error, task) };
  }
}

function transcriptMissing(task: TaskView): string {
  if (NOT_STARTED.includes(task.status)) return 'the task has not started: it has no transcript yet';
  return 'no transcript is named for this task yet: the job result names it when the agent ends';
}

async function readDiff(
  repo: string | undefined,
  base: string | undefined,
  commit: string | undefined,
  task: TaskView,
): Promise<TaskDetail['diff']> {
  if (!commit) {
    const why = task.end_reason
      ? 'the task ended without a commit (it changed no files, or did not complete)'
      : 'the task has no commit yet';
    return { missing: why };
  }
  if (!repo || !base) return { missing: `commit ${commit} is known, but not the repository or base it belongs to` };
  try {
    return { repo, ...(await taskDiff(repo, base, commit)) };
  } catch (error) {
    return { missing: `git diff ${base.slice(0, 12)}..${commit.slice(0, 12)} failed in ${repo}: ${(error as Error).message.trim()}` };
  }
}

async function withLogTail(evidence: Evidence): Promise<TaskDetail['evidence'][number]> {
  if (evidence.kind !== 'check') return evidence;
  try {
    const { text, cut } = await fileTail(evidence.log, LOG_TAIL_BYTES);
    return { ...evidence, log_tail: cut ? `…\n${text}` : text };
  } catch (error) {
    return { ...evidence, log_missing: fileMissing(evidence.log, error) };
  }
}

function fileMissing(path: string, error: unknown, task?: TaskView): string {
  if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
    return `${path} is not on this host${task?.host ? ` (the task ran on ${task.host})` : ''}, or was removed by orca clean`;
  }
  return `cannot read ${path}: ${(error as Error).message}`;
}
