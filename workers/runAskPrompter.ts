import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { Redis } from 'ioredis';
import type { AgentEventInput } from '../shared/core/events/agentEvent.js';
import { firstAnswer } from '../shared/infra/asks/answerRequest.js';
import { awaitAnswer } from '../shared/infra/asks/awaitAnswer.js';
import { rememberedRules } from '../shared/infra/asks/rememberedRules.js';
import type { Answer } from '../shared/infra/board/boardSchemas.js';
import { lastRunEventId } from '../shared/infra/board/runEvents.js';
import type { AgentJob } from '../shared/infra/queue/agentJob.js';
import type { Keys } from '../shared/infra/redis/keys.js';
import type { AnswersInAdvance, PermissionAnswer, PermissionQuestion, Prompter } from '../shared/policy/permissions/prompter.js';
import type { ProgressReporter } from './progressReporter.js';

export interface RunAskOptions {
  redis: Redis;
  keys: Keys;
  job: AgentJob;
  /** Writes the worker's own answers to the stream, in order after the agent's events. */
  progress: ProgressReporter;
}

/**
 * A job's prompter: the question travels to wherever the run's people watch. It goes on the run's
 * stream as a `permission_request` (announced, so the transcript has it too) and the agent waits
 * for the first `permission_answer` there: a terminal running `orca run` / `orca agent`, the web
 * board, `orca allow` / `orca deny` from any host. With no answer within the job's ask timeout the
 * worker answers no itself, and so it does when the agent is aborted (the wait ends at once).
 * Whatever answer is first on the stream counts, the worker's own included.
 */
export class RunAskPrompter implements Prompter {
  readonly name = 'run';

  constructor(private readonly options: RunAskOptions) {}

  async answersInAdvance(): Promise<AnswersInAdvance[]> {
    const { redis, keys, job } = this.options;
    const given = job.asks.yes_to.length > 0 ? [{ rules: job.asks.yes_to, source: '--yes-to' }] : [];
    return [...given, ...(await rememberedRules(redis, keys, job.run_id))];
  }

  async ask(question: PermissionQuestion, signal?: AbortSignal, announce?: (event: AgentEventInput) => void): Promise<PermissionAnswer> {
    const { redis, keys, job, progress } = this.options;
    const worker = `worker ${os.hostname()}:${process.pid}`;
    const timeoutMs = job.asks.timeout_ms;
    if (timeoutMs === 0) {
      return {
        allowed: false,
        reason: job.asks.nobody
          ? nobodyToAsk(question)
          : `${question.reason}; refused: this run denies every request at once (--ask-timeout 0)`,
        by: worker,
        via: 'timeout',
      };
    }
    if (signal?.aborted) return aborted(worker);
    const id = question.id ?? randomBytes(4).toString('hex');
    // Read before the request is announced: every answer to it comes after this point of the stream.
    const from = await lastRunEventId(redis, keys, job.run_id);
    (announce ?? (() => undefined))({
      type: 'permission_request',
      id,
      role: job.role.name,
      tool: question.tool,
      input: question.input ?? null,
      summary: question.summary,
      reason: question.reason,
      by: question.by ?? 'orca',
      cwd: question.cwd ?? '',
      suggestion: question.suggestion ?? [],
      expires_at: Date.now() + timeoutMs,
    });

    const waiting = new AbortController();
    const onAbort = () => waiting.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    const connection = redis.duplicate();
    try {
      const outcome = await Promise.race([awaitAnswer(connection, keys, job.run_id, id, from, waiting.signal), timedOut]);
      if (outcome !== 'timeout' && outcome !== undefined) return fromAnswer(outcome);
      if (signal?.aborted) {
        // No answer is needed any more; the record says why the request ended.
        await progress.runLevelEvent(ownAnswer(job, id, 'abort', 'the agent was aborted before anyone answered', worker));
        return aborted(worker, id);
      }
      const reason = `${question.reason}; refused: no answer within ${duration(timeoutMs)}`;
      await progress.runLevelEvent(ownAnswer(job, id, 'timeout', reason, worker));
      // An answer that reached the stream before the worker's own still wins.
      const counted = await firstAnswer(redis, keys, job.run_id, id);
      return counted ? fromAnswer(counted) : { allowed: false, reason, by: worker, via: 'timeout', requestId: id };
    } finally {
      clearTimeout(timer);
      waiting.abort();
      signal?.removeEventListener('abort', onAbort);
      connection.disconnect();
    }
  }
}

function ownAnswer(job: AgentJob, requestId: string, via: 'timeout' | 'abort', reason: string, by: string) {
  return { type: 'permission_answer', task_id: job.task_id, request_id: requestId, allowed: false, reason, by, via, remember: [] };
}

function fromAnswer(answer: Answer): PermissionAnswer {
  return { allowed: answer.allowed, reason: answer.reason, by: answer.by, via: answer.via, requestId: answer.request_id };
}

function aborted(by: string, requestId?: string): PermissionAnswer {
  return {
    allowed: false,
    reason: 'the agent was aborted before anyone answered',
    by,
    via: 'abort',
    ...(requestId !== undefined ? { requestId } : {}),
  };
}

/** `2s`, `90s`, `10 minutes`. */
function duration(ms: number): string {
  if (ms < 120_000) return `${Math.round(ms / 100) / 10}s`;
  const minutes = ms / 60_000;
  return `${Number.isInteger(minutes) ? minutes : minutes.toFixed(1)} minutes`;
}

/**
 * The refusal of a run nobody can answer (no terminal, no --ask-timeout), in one line saying how
 * to allow it: a rule given in advance, or a timeout to wait for `orca allow` or the board.
 */
function nobodyToAsk(question: PermissionQuestion): string {
  const rule = question.suggestion?.[0] ?? `${question.tool}(…)`;
  return `${question.reason}; refused: nobody can answer this run (no terminal, no --ask-timeout): allow it with --yes-to "${rule}", or pass --ask-timeout DURATION to wait for orca allow or the board`;
}
