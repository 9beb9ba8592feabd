import type { AgentJobResult } from '../../shared/infra/queue/agentJob.js';

/**
 * How a job's agent ended, in a few words for a task's detail: `max_turns: 40 turns reached`; an
 * aborted one is only why (its status already says aborted: never "aborted: aborted: …").
 */
export function howItEnded(result: Pick<AgentJobResult, 'status' | 'end_reason' | 'detail'>): string {
  return result.end_reason === result.status ? result.detail : `${result.end_reason}: ${result.detail}`;
}
