import { type SandboxKind, type SandboxMode, strictestSandboxMode } from '../shared/core/runtime/sandboxMode.js';
import type { AgentJob } from '../shared/infra/queue/agentJob.js';
import { NoSandboxError, sandboxAvailability } from '../shared/policy/permissions/sandbox.js';

/** The sandbox a job's commands run in on this worker, or why the job is refused. */
export interface JobSandbox {
  mode: SandboxMode;
  kind: SandboxKind;
  refusal?: string;
}

/**
 * The job's sandbox on this worker: the stricter of the job's mode and the worker's, what its
 * commands will run in, and, under `required` without a working bwrap, why the job is refused.
 */
export function jobSandbox(job: AgentJob, workerMode: SandboxMode = 'auto'): JobSandbox {
  const mode = strictestSandboxMode(job.sandbox, workerMode);
  if (mode === 'off' || (mode === 'auto' && !job.role.sandbox)) return { mode, kind: 'none' };
  const found = sandboxAvailability();
  if (found.kind !== undefined) return { mode, kind: found.kind };
  // No silent none: a job that wants the sandbox and did not say off is refused where there is none.
  return { mode, kind: 'none', refusal: new NoSandboxError(found.problem, found.fix).message };
}
