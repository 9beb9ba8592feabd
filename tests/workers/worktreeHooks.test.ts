import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../shared/core/runtime/compiledEntry.js';
import { PortLeaser, parsePortLeaseOwner } from '../../shared/infra/ports/portLease.js';
import { agentJobId } from '../../shared/infra/queue/agentQueue.js';
import { commitFiles, git } from '../support/gitRepo.js';
import { OrcaTestEnv, SLOW_TEST_MS } from '../support/orcaEnv.js';
import { reportTurn, scriptedJob, testRunId, toolTurn } from '../support/scriptedJobs.js';

const FIXTURES = path.join(packageRoot(), 'tests', 'fixtures', 'workers');

/** The repository's own `.claude/settings.json` names the hooks, as a Claude Code project would. */
let orca: OrcaTestEnv;

beforeAll(async () => {
  orca = await OrcaTestEnv.open({ shared: true });
  await orca.startWorker({ concurrency: 2 });
});

afterAll(async () => {
  await orca?.close();
});

function repoWithHooks(name: string, hook: (markers: string) => string): { repo: string; base: string; markers: string } {
  const markers = orca.dir(`${name}-markers`);
  const command = hook(markers);
  const settings = {
    hooks: { WorktreeCreate: [{ hooks: [{ type: 'command', command }] }], WorktreeRemove: [{ hooks: [{ type: 'command', command }] }] },
  };
  const repo = orca.dir(name);
  git(repo, 'init', '-q', '-b', 'main');
  const base = commitFiles(repo, { 'a.txt': 'a\n', '.claude/settings.json': JSON.stringify(settings, null, 2) }, 'initial');
  return { repo, base, markers };
}

function recorded(markers: string, event: string): Array<Record<string, unknown>> {
  return readdirSync(markers)
    .filter((name) => name.startsWith(`${event}-`))
    .map((name) => JSON.parse(readFileSync(path.join(markers, name), 'utf8')) as Record<string, unknown>);
}

describe('WorktreeCreate and WorktreeRemove hooks', { timeout: SLOW_TEST_MS }, () => {
  it('fire around a worktree orca makes; one left without changes is removed with its branch', async () => {
    const { repo, base, markers } = repoWithHooks('fires', (dir) => `node ${FIXTURES}/record-hook.mjs ${dir}`);
    const runId = testRunId('hooks');
    await orca.queue.add(
      scriptedJob({
        runId,
        taskId: 'idle',
        repo: { path: repo },
        base,
        turns: [toolTurn('Read', { file_path: 'a.txt' }), reportTurn('changed nothing')],
      }),
    );
    await orca.queue.add(
      scriptedJob({
        runId,
        taskId: 'busy',
        repo: { path: repo },
        base,
        turns: [toolTurn('Write', { file_path: 'b.txt', content: 'b\n' }), reportTurn('wrote b')],
      }),
    );
    const idle = await orca.result(agentJobId(runId, 'idle', 1));
    const busy = await orca.result(agentJobId(runId, 'busy', 1));

    expect(
      recorded(markers, 'WorktreeCreate')
        .map((input) => input.name)
        .sort(),
    ).toEqual([`${runId}/busy`, `${runId}/idle`]);
    expect(idle.status).toBe('completed');
    expect(idle.commit).toBeUndefined();
    expect(recorded(markers, 'WorktreeRemove')).toMatchObject([{ worktree_path: idle.worktree }]);
    expect(existsSync(idle.worktree!)).toBe(false);
    expect(git(repo, 'branch', '--list', `orca/${runId}/idle`)).toBe('');
    // The one with a commit keeps its worktree (for the merge and for inspection) and its branch.
    expect(existsSync(busy.worktree!)).toBe(true);
    expect(git(repo, 'rev-parse', `orca/${runId}/busy`)).toBe(busy.commit);
  });

  it('let a WorktreeCreate hook that prints a path supply the worktree, and remove it through WorktreeRemove', async () => {
    const { repo, base, markers } = repoWithHooks('supplies', (dir) => `node ${FIXTURES}/worktree-hook.mjs ${dir}`);
    const runId = testRunId('supplied');
    await orca.queue.add(
      scriptedJob({
        runId,
        taskId: 'work',
        repo: { path: repo },
        base,
        turns: [toolTurn('Write', { file_path: 'c.txt', content: 'c\n' }), reportTurn('wrote c')],
      }),
    );
    await orca.queue.add(scriptedJob({ runId, taskId: 'idle', repo: { path: repo }, base, turns: [reportTurn('changed nothing')] }));
    const work = await orca.result(agentJobId(runId, 'work', 1));
    const idle = await orca.result(agentJobId(runId, 'idle', 1));

    const trees = path.join(markers, 'trees');
    // The agent worked where the hook said, and its commit is on the task branch.
    expect(work.status).toBe('completed');
    expect(work.worktree).toBe(path.join(trees, `${runId}_work`));
    expect(readFileSync(path.join(work.worktree!, 'c.txt'), 'utf8')).toBe('c\n');
    expect(work.branch).toBe(`orca/${runId}/work`);
    expect(git(repo, 'show', `${work.branch}:c.txt`)).toBe('c');
    expect(git(repo, 'rev-parse', `${work.branch}^`)).toBe(base);
    // The idle one's worktree was the hook's to remove, and it did; orca's branch went with it.
    expect(idle.worktree).toBe(path.join(trees, `${runId}_idle`));
    expect(recorded(markers, 'WorktreeRemove')).toMatchObject([{ worktree_path: idle.worktree }]);
    expect(existsSync(idle.worktree!)).toBe(false);
    expect(git(repo, 'branch', '--list', `orca/${runId}/idle`)).toBe('');
    expect(git(repo, 'status', '--porcelain')).toBe('');
  });

  it('refuse a hook that names the repository itself: the agent never works in the user’s checkout', async () => {
    const { repo, base, markers } = repoWithHooks('broken', (dir) => `node ${FIXTURES}/worktree-hook.mjs ${dir} --print-project`);
    const runId = testRunId('broken');
    await orca.queue.add(
      scriptedJob({
        runId,
        taskId: 't1',
        repo: { path: repo },
        base,
        turns: [toolTurn('Write', { file_path: 'evil.txt', content: 'x' }), reportTurn()],
      }),
    );
    await expect(orca.result(agentJobId(runId, 't1', 1))).rejects.toThrow(/WorktreeCreate hook named .* which is the repository/);
    expect(recorded(markers, 'WorktreeCreate')).toHaveLength(1);
    expect(existsSync(path.join(repo, 'evil.txt'))).toBe(false);
    expect(git(repo, 'status', '--porcelain')).toBe('');
    expect(existsSync(path.join(repo, 'a.txt'))).toBe(true);
  });

  it('cannot be read from a settings file that is not JSON: the job fails saying so, with no port left leased', async () => {
    const repo = orca.dir('unreadable-settings');
    git(repo, 'init', '-q', '-b', 'main');
    const base = commitFiles(repo, { 'a.txt': 'a\n', '.claude/settings.json': '{ "hooks": ' }, 'initial');
    const runId = testRunId('unreadable');
    await orca.queue.add(scriptedJob({ runId, taskId: 't1', repo: { path: repo }, base, turns: [reportTurn()] }));
    await expect(orca.result(agentJobId(runId, 't1', 1))).rejects.toThrow(/settings\.json is not valid JSON/);
    const leases = await new PortLeaser(orca.redis, orca.keys).held();
    expect(leases.filter((lease) => parsePortLeaseOwner(lease.owner).runId === runId)).toEqual([]);
  });
});
