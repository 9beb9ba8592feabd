import os from 'node:os';
import { backendName } from '../../core/agents/agentBackend.js';
import { emptyUsage } from '../../core/model/usage.js';
import type { AgentJob, AgentJobResult } from './agentJob.js';

/**
 * A job's result with every field it has not reached at its empty value (nothing run, spent, read
 * or changed), reported from this process: a worker's job that ends early, or an `orca agent` job
 * taken off the queue before any worker took it. `status` and the rest come in `extra`.
 */
export function blankJobResult(job: AgentJob, transcript: string, extra: Partial<AgentJobResult>): AgentJobResult {
  return {
    run_id: job.run_id,
    task_id: job.task_id,
    role: job.role.name,
    status: 'failed',
    end_reason: 'error',
    detail: '',
    base: job.base,
    usage: emptyUsage(),
    cost_usd: 0,
    turns: 0,
    transcript,
    host: os.hostname(),
    pid: process.pid,
    commands: [],
    files_read: [],
    files_changed: [],
    scripted: job.model.script !== undefined,
    agent: backendName(job.agent),
    usage_reported: true,
    remembered: [],
    ...extra,
  };
}
