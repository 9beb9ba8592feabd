import path from 'node:path';
import { commonGitDir } from '../../shared/core/git/repoLock.js';
import type { SandboxKind } from '../../shared/core/runtime/sandboxMode.js';
import type { SessionDriver } from '../../shared/harness/harness.js';
import type { AgentJob } from '../../shared/infra/queue/agentJob.js';
import { jobShellEnv } from '../jobHarness.js';
import type { JobWorkspace } from '../workspace/jobWorkspace.js';

/** What a job's agent runs in, as the worker prepared it. */
export interface JobAgentPlace {
  workspace: JobWorkspace;
  sessionDir: string;
  ports: number[];
  sandbox: SandboxKind;
}

/**
 * What runs a job's agent: orca's own loop (undefined: the harness's default), or the job's ACP
 * agent in the job's worktree and sandbox, told its role's instructions.
 */
export async function jobAgentDriver(job: AgentJob, place: JobAgentPlace): Promise<SessionDriver | undefined> {
  const agent = job.agent;
  if (agent?.kind !== 'acp') return undefined;
  // Never a silent none: where the job's sandbox is one the agent cannot be run in, the job fails saying so.
  if (place.sandbox === 'sandbox-exec') {
    throw new Error(
      `the ${agent.name} agent cannot run in sandbox-exec (macOS): orca runs an external agent inside bwrap only (docs/agents.md); run with --sandbox off to run it unsandboxed, knowingly, or use the orca agent`,
    );
  }
  const { workspace } = place;
  const gitDir = await commonGitDir(workspace.repo);
  // Imported with the first ACP job, not with the worker: the ACP and MCP SDKs and the agent's
  // sandbox launcher cost a worker running only orca's own loop about 20 MB it would never use.
  const { acpDriver } = await import('./acpDriver.js');
  return acpDriver({
    agent,
    roleInstructions: job.role.prompt,
    launch: {
      worktree: workspace.dir,
      sessionDir: place.sessionDir,
      readable: [gitDir, ...workspace.linked.map((name) => path.join(workspace.repo, name))],
      sandboxed: place.sandbox === 'bwrap',
      jobEnv: jobShellEnv(job, place.ports),
    },
  });
}
