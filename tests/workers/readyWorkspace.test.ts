import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentJobId } from '../../shared/infra/queue/agentQueue.js';
import { commitFiles, git } from '../support/gitRepo.js';
import { OrcaTestEnv, SLOW_TEST_MS } from '../support/orcaEnv.js';
import { reportTurn, scriptedJob, testRunId, toolTurn } from '../support/scriptedJobs.js';

/** A worker job's worktree as orca makes it ready: its start files, .env.orca, a sparse checkout. */
let orca: OrcaTestEnv;

beforeAll(async () => {
  orca = await OrcaTestEnv.open({ shared: true });
  await orca.startWorker({ concurrency: 2 });
});

afterAll(async () => {
  await orca?.close();
});

function repoWith(name: string, files: Record<string, string>): { repo: string; base: string } {
  const repo = orca.dir(name);
  git(repo, 'init', '-q', '-b', 'main');
  return { repo, base: commitFiles(repo, files, 'initial') };
}

describe('a worker job’s worktree made ready', { timeout: SLOW_TEST_MS }, () => {
  it('reads .env.orca and the copied .env.test, commits neither, and keeps the copied guarded file as orca left it', async () => {
    const { repo, base } = repoWith('env-repo', { '.gitignore': '.env.test\n', '.worktreeinclude': '.env.test\n', 'a.txt': 'a\n' });
    writeFileSync(path.join(repo, '.env.test'), 'TOKEN=local\n');
    const runId = testRunId('env');
    await orca.queue.add(
      scriptedJob({
        runId,
        taskId: 'reads',
        repo: { path: repo },
        base,
        ports: 2,
        turns: [
          toolTurn('Bash', { command: 'cat .env.orca .env.test > seen.txt; echo "$PORT $ORCA_PORTS" >> seen.txt' }),
          reportTurn('read them'),
        ],
      }),
    );
    const reads = await orca.result(agentJobId(runId, 'reads', 1));
    expect(reads.status, reads.detail).toBe('completed');
    expect(git(repo, 'show', '--name-only', '--format=', reads.commit!)).toBe('seen.txt');
    const seen = git(repo, 'show', `${reads.commit}:seen.txt`).split('\n');
    const ports = /^ORCA_PORTS=(\d+),(\d+)$/.exec(seen.find((line) => line.startsWith('ORCA_PORTS='))!)!;
    expect(seen).toEqual([
      '# Written by orca for this worktree; never committed.',
      `ORCA_PORTS=${ports[1]},${ports[2]}`,
      `PORT=${ports[1]}`,
      `ORCA_RUN_ID=${runId}`,
      'ORCA_TASK_ID=reads',
      'TOKEN=local',
      `${ports[1]} ${ports[1]},${ports[2]}`,
    ]);

    // A write the permission checks cannot see in the command (a program writing it).
    await orca.queue.add({
      ...scriptedJob({
        runId,
        taskId: 'writes',
        repo: { path: repo },
        base,
        turns: [
          toolTurn('Bash', { command: `node -e "require('fs').writeFileSync('.env.test', 'TOKEN=stolen')"; echo b > b.txt` }),
          reportTurn('changed it'),
        ],
      }),
      asks: { timeout_ms: 0, yes_to: [] },
    });
    const writes = await orca.result(agentJobId(runId, 'writes', 1));
    // The guarded-path watch puts the copied file back as orca left it (its start state), and says so.
    const notices = (await orca.redis.xrange(orca.keys.events(runId), '-', '+'))
      .map(([, fields]) => JSON.parse(fields[1]!) as { task_id?: string; event: { type: string; message?: string } })
      .filter((entry) => entry.task_id === 'writes' && entry.event.type === 'notice')
      .map((entry) => entry.event.message);
    expect(notices).toContainEqual(expect.stringContaining('put back .env.test: .env.test may hold secrets (.env files are guarded)'));
    expect(writes.status, writes.detail).toBe('completed');
    expect(git(repo, 'show', '--name-only', '--format=', writes.commit!)).toBe('b.txt');
  });

  it('checks out sparsely what the task owns and its checks name', async () => {
    const files: Record<string, string> = {
      'package.json': '{"type": "module"}\n',
      'orca.json': '{"sparsePaths": ["shared"]}\n',
      'tests/a.test.mjs': "import { test } from 'node:test';\ntest('a', () => {});\n",
    };
    for (const pkg of ['a', 'b', 'shared']) files[`${pkg}/index.mjs`] = 'export {};\n';
    const { repo, base } = repoWith('sparse-repo', files);
    const runId = testRunId('sparse');
    await orca.queue.add({
      ...scriptedJob({
        runId,
        taskId: 'owns-a',
        repo: { path: repo },
        base,
        turns: [
          toolTurn('Bash', { command: 'find . -path ./.git -prune -o -type f -print | sort > a/seen.txt' }),
          toolTurn('Bash', { command: 'node --test tests/a.test.mjs' }),
          {
            tools: [
              {
                name: 'Report',
                input: { summary: 'listed', unresolved: [], claimed_checks: [{ command: 'node --test tests/a.test.mjs', exit_code: 0 }] },
              },
            ],
          },
        ],
      }),
      owned_paths: ['a/**'],
      checks: ['node --test tests/a.test.mjs'],
    });
    const result = await orca.result(agentJobId(runId, 'owns-a', 1));
    expect(result.status, `${result.end_reason}: ${result.detail}`).toBe('completed');
    // (The listing may or may not hold the file it is being written to: the shell makes it first.)
    const listed = git(repo, 'show', `${result.commit}:a/seen.txt`)
      .split('\n')
      .filter((file) => file !== './a/seen.txt');
    expect(listed).toEqual(['./.env.orca', './a/index.mjs', './orca.json', './package.json', './shared/index.mjs', './tests/a.test.mjs']);
    // The commit changes only what the agent wrote: b/ is still in its tree.
    expect(git(repo, 'diff', '--name-only', base, result.commit!)).toBe('a/seen.txt');
    expect(git(repo, 'ls-tree', '-r', '--name-only', result.commit!).split('\n')).toContain('b/index.mjs');
  });
});
