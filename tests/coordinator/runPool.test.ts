import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../shared/core/runtime/compiledEntry.js';
import { readRunEvents } from '../../shared/infra/board/runEvents.js';
import { commitFiles, git } from '../support/gitRepo.js';
import { OrcaTestEnv, SLOW_TEST_MS } from '../support/orcaEnv.js';

const ONE_NOTE = path.join(packageRoot(), 'tests', 'fixtures', 'scripts', 'one-note.json');

describe("a run's pool of ready worktrees", { timeout: SLOW_TEST_MS }, () => {
  it('serves the run, then goes with it: no pooled worktree is left on disk or in git', async () => {
    const env = await OrcaTestEnv.open();
    const repo = env.dir('tiny');
    git(repo, 'init', '-q', '-b', 'main');
    commitFiles(
      repo,
      {
        'package.json': `${JSON.stringify({ name: 'tiny', private: true, type: 'module', scripts: { test: 'node --test test/' } })}\n`,
        'test/ok.test.js': "import test from 'node:test';\ntest('ok', () => {});\n",
      },
      'initial',
    );
    const run = await env.cli(
      ['run', 'add a note', '--repo', repo, '--script', ONE_NOTE, '--check', 'npm test', '--json', '--workers', '1', '--concurrency', '2'],
      { deadlineMs: 280_000 },
    );
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    const result = JSON.parse(run.stdout) as { run_id: string; status: string };
    expect(result.status).toBe('PASS');

    // Its writing jobs (the worker, the verification) took worktrees the pool had ready.
    const workspaces = (await readRunEvents(env.redis, env.keys, result.run_id, '0', 100_000))
      .map(({ entry }) => entry.event)
      .filter((event) => event.type === 'workspace' && event.kind !== 'view');
    expect(workspaces.length).toBeGreaterThan(0);
    expect(workspaces.some((event) => (event as { pooled?: boolean }).pooled === true)).toBe(true);

    // Gone with the run: the folder, and every worktree git knew of it.
    const pools = path.join(env.home, 'pool');
    expect(existsSync(pools) ? readdirSync(pools) : []).toEqual([]);
    const listed = git(repo, 'worktree', 'list', '--porcelain')
      .split('\n')
      .filter((line) => line.startsWith('worktree '));
    expect(listed).toEqual([`worktree ${repo}`]);
  });
});
