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

/** A job's external agent, starting: the session's driver, and what the job tells it and takes back. */
export interface JobAgent {
  driver: SessionDriver;
  /** Its process tree, proxy and MCP server gone, whether or not its session ever ran. */
  close(): Promise<void>;
}

/**
 * A job's ACP agent, started now, as soon as its worktree and its sandbox's binds are known:
 * its process and `initialize` run while the job sets the rest of its session up (orca.json's
 * setup, the model, the harness and its watch). `session/new` waits for the session: it is where
 * Claude Code starts in the worktree and runs the project's SessionStart hooks, which must come
 * after the watch's first look, or a guarded file they wrote would be taken as the start state
 * (and never put back). Undefined for orca's own loop (the harness's default driver).
 */
export async function startJobAgent(job: AgentJob, place: JobAgentPlace): Promise<JobAgent | undefined> {
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
  const [{ acpDriver }, { AgentStart }] = await Promise.all([import('./acpDriver.js'), import('./agentStart.js')]);
  const start = new AgentStart({
    agent,
    worktree: workspace.dir,
    sessionDir: place.sessionDir,
    readable: [gitDir, ...workspace.linked.map((name) => path.join(workspace.repo, name))],
    sandboxed: place.sandbox === 'bwrap',
    jobEnv: jobShellEnv(job, place.ports),
  });
  const session = { agent, root: workspace.dir, roleInstructions: job.role.prompt };
  return {
    driver: acpDriver({ ...session, start }),
    close: () => start.close(),
  };
}
