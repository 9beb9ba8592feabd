import { readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claudeCode } from '../../shared/core/agents/claudeCodePreset.js';
import { OrcaProjectConfigSchema } from '../../shared/core/git/orcaProjectConfig.js';
import { PortLeaser, parsePortLeaseOwner } from '../../shared/infra/ports/portLease.js';
import { agentJobId } from '../../shared/infra/queue/agentQueue.js';
import { commitFiles, git } from '../support/gitRepo.js';
import { MessagesServer, reply } from '../support/messagesServer.js';
import { OrcaTestEnv, SLOW_TEST_MS } from '../support/orcaEnv.js';
import { processesWorkingIn } from '../support/processTable.js';
import { reportTurn, scriptedJob, testRunId } from '../support/scriptedJobs.js';

/** `orca abort` while Claude Code waits on its model, mid-turn: its whole process tree goes, nothing of the job is left held. */

let server: MessagesServer;

beforeEach(async () => {
  server = new MessagesServer({
    answer: (body) => {
      const tools = (body as { tools?: unknown[] } | undefined)?.tools;
      // The task's first turn starts streaming, then stalls: Claude Code is mid-turn when the abort comes.
      return !tools || tools.length === 0 ? reply.text('ok') : { ...reply.text('Working on it.'), stallAfter: 3 };
    },
  });
  await server.start();
});

afterEach(async () => {
  await server.close();
});

/** Pids of running processes whose environment names the run (the agent gets ORCA_RUN_ID, as an agent's commands do). */
function processesOfRun(runId: string): number[] {
  const needle = Buffer.from(`ORCA_RUN_ID=${runId}\0`);
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        return (
          !readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]?.startsWith('Z') &&
          readFileSync(`/proc/${entry}/environ`).includes(needle)
        );
      } catch {
        return false; // Gone since the listing, or not ours to read.
      }
    })
    .map(Number);
}

/** Polls until `check` holds; the deadline is a safety net for a slow machine, not a measure of speed. */
async function waitUntil(what: string, check: () => boolean, deadlineMs = 60_000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`never happened: ${what}`);
    await sleep(50);
  }
}

describe('orca abort during a Claude Code turn', { timeout: SLOW_TEST_MS }, () => {
  it('leaves no process of the agent, no port lease, and no worktree but the one kept for inspection', async () => {
    const orca = await OrcaTestEnv.open();
    const repo = orca.dir('repo');
    git(repo, 'init', '-q', '-b', 'main');
    const base = commitFiles(repo, { 'a.txt': 'a\n' }, 'initial');
    await orca.startWorker({ env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-test-fake-key' } });
    const runId = testRunId('acp-abort');
    await orca.queue.add({ ...scriptedJob({ runId, taskId: 't1', repo, base, turns: [reportTurn()] }), agent: claudeCode });

    await waitUntil('Claude Code asked its model for the task', () =>
      server.requests.some((request) => (request.body?.tools ?? []).length > 0),
    );
    const agentProcesses = processesOfRun(runId);
    expect(agentProcesses.length).toBeGreaterThan(0);

    const abort = await orca.cli(['abort', runId]);
    expect(abort.code, abort.stderr).toBe(0);
    const result = await orca.result(agentJobId(runId, 't1', 1));
    expect(result).toMatchObject({ status: 'aborted', agent: 'claude-code' });

    // Claude Code, its adapter, the sandbox around them: all gone.
    await waitUntil('every process of the agent ended', () => processesOfRun(runId).length === 0);
    expect(processesWorkingIn(result.worktree!)).toEqual([]);
    const leases = await new PortLeaser(orca.redis, orca.keys).held();
    expect(leases.filter((lease) => parsePortLeaseOwner(lease.owner).runId === runId)).toEqual([]);
    // The aborted agent's worktree is kept for inspection, as orca's own agents' are; no other was made.
    const worktrees = git(repo, 'worktree', 'list', '--porcelain')
      .split('\n')
      .filter((line) => line.startsWith('worktree '))
      .map((line) => line.slice('worktree '.length));
    expect(worktrees).toEqual([repo, result.worktree]);
  });

  it('a job whose setup fails after its agent started (the agent starts beside the set-up) leaves no process of it', async () => {
    const orca = await OrcaTestEnv.open();
    const repo = orca.dir('repo');
    git(repo, 'init', '-q', '-b', 'main');
    const base = commitFiles(repo, { 'a.txt': 'a\n' }, 'initial');
    await orca.startWorker({ env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-test-fake-key' } });
    const runId = testRunId('acp-setup');
    // The setup holds until the test has seen the agent's adapter running, then fails.
    const project = OrcaProjectConfigSchema.parse({ setup: ['while [ ! -f .go ]; do sleep 0.05; done; exit 3'] });
    await orca.queue.add({ ...scriptedJob({ runId, taskId: 't1', repo, base, turns: [reportTurn()] }), agent: claudeCode, project });

    const adapter = () =>
      processesOfRun(runId).find((pid) => {
        try {
          return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('claude-agent-acp');
        } catch {
          return false;
        }
      });
    await waitUntil('the agent’s adapter started while the setup ran', () => adapter() !== undefined);
    writeFileSync(path.join(readlinkSync(`/proc/${adapter()}/cwd`), '.go'), '');
    const result = await orca.result(agentJobId(runId, 't1', 1));
    expect(result).toMatchObject({ status: 'failed', end_reason: 'setup_failed', agent: 'claude-code' });
    await waitUntil('every process of the agent ended', () => processesOfRun(runId).length === 0);
    // No session was opened: Claude Code never asked its model for anything.
    expect(server.requests).toEqual([]);
  });
});
