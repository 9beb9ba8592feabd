import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../shared/core/runtime/compiledEntry.js';
import { readRunEvents } from '../../shared/infra/board/runEvents.js';
import { PortLeaser } from '../../shared/infra/ports/portLease.js';
import { agentJobId } from '../../shared/infra/queue/agentQueue.js';
import { commitFiles, git } from '../support/gitRepo.js';
import { OrcaTestEnv, SLOW_TEST_MS } from '../support/orcaEnv.js';
import { reportTurn, scriptedJob, testRunId, toolTurn } from '../support/scriptedJobs.js';

const HOLD_PORTS = path.join(packageRoot(), 'tests', 'fixtures', 'workers', 'hold-ports.mjs');
const JOBS = 16;
const PORTS_PER_JOB = 2;

describe('leased ports', { timeout: SLOW_TEST_MS }, () => {
  it('lets 16 jobs at once each bind and hold its own ports: no EADDRINUSE, no port leased twice, no lease left', async () => {
    const orca = await OrcaTestEnv.open();
    const repo = orca.dir('repo');
    git(repo, 'init', '-q', '-b', 'main');
    const base = commitFiles(repo, { 'a.txt': 'a\n' }, 'initial');
    await Promise.all([orca.startWorker({ concurrency: 8 }), orca.startWorker({ concurrency: 8 })]);

    const barrier = orca.dir('bound');
    const runId = testRunId('ports');
    const tasks = Array.from({ length: JOBS }, (_, i) => `p${String(i).padStart(2, '0')}`);
    for (const taskId of tasks) {
      await orca.queue.add(
        scriptedJob({
          runId,
          taskId,
          repo: { path: repo },
          base,
          ports: PORTS_PER_JOB,
          // Unsandboxed: the sandbox gives a shell with no network a namespace of its own, where
          // ports cannot collide; agents allowed the network share the host's, as here.
          role: { sandbox: false },
          env: { BARRIER: barrier, EXPECTED: String(JOBS * PORTS_PER_JOB) },
          turns: [toolTurn('Bash', { command: `node ${HOLD_PORTS}`, timeout: 300_000 }), reportTurn('held my ports')],
        }),
      );
    }
    const results = await Promise.all(tasks.map((taskId) => orca.result(agentJobId(runId, taskId, 1))));

    for (const result of results) {
      expect(result.status).toBe('completed');
      expect(
        result.commands.map((c) => c.exit_code),
        `${result.task_id}: ${JSON.stringify(result.commands)}`,
      ).toEqual([0]);
    }
    // Every job bound every port it leased, all at the same time: 32 distinct ports.
    const bound = readdirSync(barrier).map((name) => {
      const [port, task] = name.split('-');
      return { port: Number(port), task: task! };
    });
    expect(bound).toHaveLength(JOBS * PORTS_PER_JOB);
    expect(new Set(bound.map((b) => b.port)).size).toBe(JOBS * PORTS_PER_JOB);
    // ... and they are the ports the worker leased for that job.
    const leased = new Map<string, number[]>();
    for (const { entry } of await readRunEvents(orca.redis, orca.keys, runId, '0', 100_000)) {
      if (entry.event.type === 'workspace') leased.set(entry.task_id!, entry.event.ports as number[]);
    }
    for (const taskId of tasks) {
      expect(
        bound
          .filter((b) => b.task === taskId)
          .map((b) => b.port)
          .sort(),
      ).toEqual([...(leased.get(taskId) ?? [])].sort());
    }
    expect(await new PortLeaser(orca.redis, orca.keys).held()).toEqual([]);
  });
});
