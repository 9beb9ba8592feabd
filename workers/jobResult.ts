import path from 'node:path';
import type { AgentResult } from '../shared/core/loop/query.js';
import type { Model } from '../shared/core/model/model.js';
import type { Harness } from '../shared/harness/harness.js';
import type { AgentJob, AgentJobResult } from '../shared/infra/queue/agentJob.js';
import { blankJobResult } from '../shared/infra/queue/blankJobResult.js';
import { commandsFromLedger } from '../shared/infra/verify/gates/claims.js';
import type { GateReport } from '../shared/infra/verify/gates/workerGates.js';
import { transcriptPathFor } from '../shared/policy/hooks/hookContext.js';
import type { JobWorkspace } from './workspace/jobWorkspace.js';

/** A result with every field the job has not reached yet at its empty value: a failed job by default. */
export function jobResult(job: AgentJob, sessionDir: string): (extra: Partial<AgentJobResult>) => AgentJobResult {
  return (extra) => blankJobResult(job, transcriptPathFor(sessionDir), extra);
}

export interface RanJob {
  workspace: JobWorkspace;
  model: Model;
  harness: Harness;
  result: AgentResult;
  status: AgentJobResult['status'];
  gates?: GateReport;
  commit?: string;
  /** The files of the task's whole change (base..commit). */
  files?: string[];
}

/** What a job whose agent ran hands back: how it ended, what it read, ran and changed, and the gates' verdict. */
export function ranResult({ workspace, model, harness, result, status, gates, commit, files }: RanJob): Partial<AgentJobResult> {
  return {
    status,
    end_reason: result.reason,
    detail: result.detail,
    report: result.report,
    branch: commit ? workspace.branch : undefined,
    commit,
    worktree: workspace.dir,
    usage: result.usage,
    cost_usd: result.costUsd,
    usage_reported: result.usageReported !== false,
    turns: result.turns,
    commands: commandsFromLedger(harness.session.ledger.all()),
    files_read: harness.session.fileState
      .all()
      .filter((entry) => entry.origin === 'read' && workspace.dir && entry.path.startsWith(workspace.dir + path.sep))
      .map((entry) => ({
        path: path.relative(workspace.dir, entry.path).split(path.sep).join('/'),
        hash: entry.hash,
        partial: entry.isPartialView,
        ...(entry.isPartialView ? { seen: entry.seen ?? [] } : {}),
      })),
    // The task's whole change, a dead attempt's commits included: what a merge of the branch brings.
    files_changed: commit ? (files ?? []) : [],
    scripted: model.scripted,
    sandbox: harness.sandboxed ? 'bwrap' : 'none',
    remembered: harness.session.toolContext.services.memory?.remembered ?? [],
    ...(gates
      ? {
          gates: {
            ok: gates.ok,
            gates: gates.gates,
            checks: gates.checks.map(({ evidence, ...check }) => ({ ...check, ...(evidence ? { log: evidence.log } : {}) })),
            flags: gates.flags,
          },
        }
      : {}),
  };
}

/** How the agent ended, as the job reports it. */
export function statusOf(result: AgentResult, signal: AbortSignal): AgentJobResult['status'] {
  if (result.reason === 'aborted' || signal.aborted) return 'aborted';
  return result.reason === 'report' ? 'completed' : 'failed';
}
