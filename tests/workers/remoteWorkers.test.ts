import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../shared/core/runtime/compiledEntry.js';
import { agentJobId } from '../../shared/infra/queue/agentQueue.js';
import { commitFiles, git } from '../support/gitRepo.js';
import { OrcaTestEnv, SLOW_TEST_MS } from '../support/orcaEnv.js';
import { reportTurn, scriptedJob, testRunId, toolTurn } from '../support/scriptedJobs.js';

const BARRIER_SCRIPT = path.join(packageRoot(), 'tests', 'fixtures', 'workers', 'barrier.mjs');

describe('workers on other hosts', { timeout: SLOW_TEST_MS }, () => {
  it('share nothing but Redis and a bare repository: each clones, works and pushes its branch back', async () => {
    const orca = await OrcaTestEnv.open();
    // The "hosts": two worker processes, each with an ORCA_HOME of its own.
    const homes = [orca.dir('host-a'), orca.dir('host-b')];
    const origin = orca.dir('origin');
    git(origin, 'init', '-q', '-b', 'main');
    const base = commitFiles(origin, { 'a.txt': 'base\n' }, 'base');
    commitFiles(origin, { 'a.txt': 'later\n' }, 'later');
    const bare = path.join(orca.root, 'shared.git');
    execFileSync('git', ['clone', '-q', '--bare', origin, bare]);
    const workers = await Promise.all(homes.map((home) => orca.startWorker({ home, concurrency: 1 })));

    // Each job waits at a barrier until both have started: with one job at a time per worker,
    // that proves the two ran on different workers.
    const barrier = orca.dir('barrier');
    const runId = testRunId('remote');
    for (const taskId of ['t1', 't2']) {
      await orca.queue.add(
        scriptedJob({
          runId,
          taskId,
          repo: { remote: `file://${bare}` },
          base,
          role: { sandbox: false },
          env: { BARRIER: barrier },
          turns: [
            toolTurn('Bash', { command: `node ${BARRIER_SCRIPT}` }),
            toolTurn('Write', { file_path: `${taskId}.txt`, content: `${taskId}\n` }),
            reportTurn(`wrote ${taskId}.txt`),
          ],
        }),
      );
    }
    const results = await Promise.all(['t1', 't2'].map((taskId) => orca.result(agentJobId(runId, taskId, 1))));

    expect(results.map((r) => r.status)).toEqual(['completed', 'completed']);
    // Both reached the barrier and passed it: they ran at the same time.
    for (const result of results) expect(result.commands.map((c) => c.exit_code)).toEqual([0]);
    expect(new Set(results.map((r) => r.pid))).toEqual(new Set(workers.map((w) => w.pid)));
    for (const result of results) {
      const other = result.task_id === 't1' ? 't2' : 't1';
      const branch = `refs/orca/${runId}/${result.task_id}`;
      // Pushed back as the run's ref for the task: on the named base, with this task's work only.
      expect(git(bare, 'rev-parse', branch)).toBe(result.commit);
      expect(git(bare, 'rev-parse', `${branch}^`)).toBe(base);
      expect(git(bare, 'show', `${branch}:${result.task_id}.txt`)).toBe(result.task_id);
      expect(git(bare, 'show', `${branch}:a.txt`)).toBe('base');
      expect(git(bare, 'ls-tree', '--name-only', branch)).not.toContain(`${other}.txt`);
      // Worked in a clone and worktree under its own ORCA_HOME.
      const home = homes[workers.findIndex((w) => w.pid === result.pid)]!;
      expect(result.worktree!.startsWith(path.join(home, 'worktrees') + path.sep)).toBe(true);
      expect(readdirSync(path.join(home, 'repos')).filter((name) => !name.endsWith('.lock'))).toHaveLength(1);
    }
    // The remote's branches are untouched: the work is under the run's refs.
    expect(git(bare, 'for-each-ref', '--format=%(refname)', 'refs/heads')).toBe('refs/heads/main');
    expect(git(bare, 'for-each-ref', '--format=%(refname)', 'refs/orca').split('\n').sort()).toEqual(
      [`refs/orca/${runId}/t1`, `refs/orca/${runId}/t2`].sort(),
    );
    expect(existsSync(path.join(origin, '.git', 'refs', 'heads', 'orca'))).toBe(false);
  });
});
