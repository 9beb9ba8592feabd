import { describe, expect, it } from 'vitest';
import { scriptedAgentJob } from '../../bench/runScript.js';
import { claudeCode } from '../../shared/core/agents/claudeCodePreset.js';
import { AgentJobSchema } from '../../shared/infra/queue/agentJob.js';
import { startJobAgent } from '../../workers/agents/jobAgent.js';
import type { JobWorkspace } from '../../workers/workspace/jobWorkspace.js';
import { git, makeRepo } from '../support/gitRepo.js';
import { tempDir } from '../support/tempDir.js';

/** A Claude Code job in a fresh repository, its workspace the repository itself. */
function claudeCodeJob() {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  const base = git(repo, 'rev-parse', 'HEAD');
  const job = AgentJobSchema.parse({
    ...scriptedAgentJob({ runId: 'r20261206-000000-abcd', taskId: 'worker', repo, base, turns: [] }),
    agent: claudeCode,
  });
  const workspace = { repo, dir: repo, kind: 'branch', base, start: base, linked: [] } as unknown as JobWorkspace;
  return { repo, base, job, workspace };
}

/** Never a silent none: an external agent runs in bwrap, or unsandboxed only when the run said --sandbox off. */
describe('an external agent and the sandbox its job has', () => {
  it('fails a job whose sandbox is sandbox-exec (macOS), saying what to do, before anything is started', async () => {
    const { job, workspace } = claudeCodeJob();
    await expect(startJobAgent(job, { workspace, sessionDir: tempDir(), ports: [], sandbox: 'sandbox-exec' })).rejects.toThrow(
      /^the claude-code agent cannot run in sandbox-exec \(macOS\): .*run with --sandbox off to run it unsandboxed, knowingly/,
    );
  });

  it('starts, its driver imported with the first ACP job rather than with the worker, in bwrap or unsandboxed', async () => {
    const { repo, base, job, workspace } = claudeCodeJob();
    for (const sandbox of ['bwrap', 'none'] as const) {
      const started = await startJobAgent(job, { workspace, sessionDir: tempDir(), ports: [], sandbox });
      try {
        expect(typeof started?.driver, sandbox).toBe('function');
      } finally {
        await started?.close();
      }
    }
    // orca's own agent has no driver to import: the harness runs its loop.
    const own = AgentJobSchema.parse(scriptedAgentJob({ runId: 'r20261206-000000-abcd', taskId: 'worker', repo, base, turns: [] }));
    expect(await startJobAgent(own, { workspace, sessionDir: tempDir(), ports: [], sandbox: 'none' })).toBeUndefined();
  });
});
