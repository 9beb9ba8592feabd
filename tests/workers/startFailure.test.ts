import { randomBytes } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTrustedConfig } from '../../shared/context/config/readTrustedConfig.js';
import { readOrcaProjectConfig } from '../../shared/core/git/orcaProjectConfig.js';
import { OrcaHome } from '../../shared/core/runtime/orcaHome.js';
import { PortLeaser } from '../../shared/infra/ports/portLease.js';
import { agentJobId } from '../../shared/infra/queue/agentQueue.js';
import { MANY_TOOLS_SERVER } from '../mcp/mcpSupport.js';
import { git, makeRepo, writeFiles } from '../support/gitRepo.js';
import { OrcaTestEnv, SLOW_TEST_MS } from '../support/orcaEnv.js';
import { processesMatching } from '../support/processTable.js';
import { reportTurn, scriptedJob, testRunId } from '../support/scriptedJobs.js';

/**
 * A job's start runs branches side by side (the lease beside the configuration, the user's
 * checkout looked at beside the worktree being made, the watch beside the MCP servers). When one
 * fails, what the others took is given back all the same: here the look at the user's checkout
 * fails (its index is not one git can read: the task worktree has its own, so that worktree is
 * made), while the agent's MCP server starts beside it.
 */
describe('a job whose start fails in one of its parallel branches', { timeout: SLOW_TEST_MS }, () => {
  it('fails, with its lease released, no worktree left, and its MCP server stopped', async () => {
    const orca = await OrcaTestEnv.open();
    const repo = makeRepo({ 'src/a.ts': 'export const a = 1;\n' });
    const base = git(repo, 'rev-parse', 'HEAD');
    const marker = `orca-start-failure-${randomBytes(4).toString('hex')}`;
    writeFiles(path.join(orca.root, 'user-home'), {
      '.claude.json': JSON.stringify({ mcpServers: { fixture: { command: process.execPath, args: [MANY_TOOLS_SERVER, marker] } } }),
    });
    // What a coordinator hands every job: read before the checkout is broken.
    const config = await readTrustedConfig({
      project: { repo, commit: base },
      userClaudeDir: path.join(orca.root, 'user-home', '.claude'),
      homeDir: path.join(orca.root, 'user-home'),
    });
    const project = await readOrcaProjectConfig(repo, base);
    writeFileSync(path.join(repo, '.git', 'index'), 'not an index');
    expect(() => git(repo, 'status')).toThrow(/index/);
    await orca.startWorker({ concurrency: 1 });

    const runId = testRunId('startfail');
    await orca.queue.add({
      ...scriptedJob({ runId, taskId: 't1', repo, base, ports: 2, role: { sandbox: false }, turns: [reportTurn('never reached')] }),
      mcp: ['fixture'],
      config,
      project,
    });
    await expect(orca.result(agentJobId(runId, 't1', 1))).rejects.toThrow(/index/);

    expect(await new PortLeaser(orca.redis, orca.keys).held()).toEqual([]);
    expect(existsSync(new OrcaHome(orca.home).worktree(runId, 't1'))).toBe(false);
    expect(git(repo, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
    // The branch beside the failing one ran to its end (the server started) and gave it back: none is left running.
    expect(processesMatching(marker)).toEqual([]);
  });
});
