import { existsSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../shared/core/runtime/compiledEntry.js';
import { readRunEvents } from '../../shared/infra/board/runEvents.js';
import { agentJobId } from '../../shared/infra/queue/agentQueue.js';
import { commitFiles, git } from '../support/gitRepo.js';
import { OrcaTestEnv, SLOW_TEST_MS } from '../support/orcaEnv.js';
import { scriptedJob, testRunId } from '../support/scriptedJobs.js';

const ONE_NOTE = path.join(packageRoot(), 'tests', 'fixtures', 'scripts', 'one-note.json');
const EXPLORE_REPORT = [{ tools: [{ name: 'Report', input: { findings: [], files: [], questions: [] } }] }];

function tinyRepo(dir: string): { dir: string; base: string } {
  git(dir, 'init', '-q', '-b', 'main');
  const base = commitFiles(
    dir,
    {
      'package.json': `${JSON.stringify({ name: 'tiny', private: true, type: 'module', scripts: { test: 'node --test test/' } }, null, 2)}\n`,
      'README.md': '# tiny\n',
      'src/a.js': 'export const a = 1;\n',
      'test/one.test.js':
        "import assert from 'node:assert/strict';\nimport test from 'node:test';\ntest('one', () => assert.equal(1, 1));\n",
    },
    'initial',
  );
  return { dir, base };
}

/** Every view folder under ORCA_HOME (`views/<run>/<repoKey>/<commit>`), as `<run>/<commit>`. */
function viewsIn(home: string): string[] {
  const root = path.join(home, 'views');
  if (!existsSync(root)) return [];
  return readdirSync(root).flatMap((run) =>
    readdirSync(path.join(root, run)).flatMap((key) => readdirSync(path.join(root, run, key)).map((commit) => `${run}/${commit}`)),
  );
}

/** A PATH like this machine's without bwrap (see tests/coordinator/sandboxLine.test.ts). */
function pathWithoutBwrap(dir: string): string {
  for (const folder of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!folder || !existsSync(folder)) continue;
    for (const name of readdirSync(folder)) {
      if (name === 'bwrap' || existsSync(path.join(dir, name))) continue;
      symlinkSync(path.join(folder, name), path.join(dir, name));
    }
  }
  return dir;
}

let env: OrcaTestEnv;
beforeAll(async () => {
  env = await OrcaTestEnv.open({ shared: true });
});
afterAll(async () => {
  await env.close();
});

async function notices(runId: string, taskId: string): Promise<string[]> {
  return (await readRunEvents(env.redis, env.keys, runId, '0', 100_000))
    .map(({ entry }) => entry)
    .filter((entry) => entry.task_id === taskId && entry.event.type === 'notice')
    .map((entry) => String(entry.event.message));
}

describe('read-only views', () => {
  it(
    'belong to their run: two runs in a row leave no view behind',
    async () => {
      const repo = tinyRepo(env.dir('repo-runs'));
      for (const round of [1, 2]) {
        const run = await env.cli(['run', 'add a note', '--repo', repo.dir, '--script', ONE_NOTE, '--json', '--workers', '1'], {
          deadlineMs: 280_000,
        });
        expect(run.code, `round ${round}: ${run.stdout}\n${run.stderr}`).toBe(0);
        // The run's explore and plan agents read a view; it went with the run.
        const runId = JSON.parse(run.stdout).run_id as string;
        const seen = (await readRunEvents(env.redis, env.keys, runId, '0', 100_000)).filter(
          ({ entry }) => entry.event.type === 'workspace' && (entry.event as { kind?: string }).kind === 'view',
        );
        expect(seen.length, `round ${round}`).toBeGreaterThan(0);
        expect(viewsIn(env.home), `round ${round}`).toEqual([]);
        expect(git(repo.dir, 'worktree', 'list', '--porcelain')).not.toContain(path.join(env.home, 'views'));
      }
    },
    SLOW_TEST_MS,
  );

  it(
    'are checked clean before each reuse: a view written by hand is rebuilt, with a notice in the run’s events',
    async () => {
      const repo = tinyRepo(env.dir('repo-reuse'));
      await env.startWorker({ concurrency: 1 });
      const runId = testRunId('views');
      const job = (taskId: string) =>
        scriptedJob({ runId, taskId, roleName: 'explore', repo: { path: repo.dir }, base: repo.base, turns: EXPLORE_REPORT });
      await env.queue.add(job('first'));
      expect((await env.result(agentJobId(runId, 'first', 1))).status).toBe('completed');
      expect(viewsIn(env.home)).toEqual([`${runId}/${repo.base}`]);
      const [key] = readdirSync(path.join(env.home, 'views', runId));
      const view = path.join(env.home, 'views', runId, key!, repo.base);
      expect(await notices(runId, 'first')).not.toContainEqual(expect.stringContaining('was rebuilt'));

      // Reused as it is when nothing changed.
      await env.queue.add(job('second'));
      expect((await env.result(agentJobId(runId, 'second', 1))).status).toBe('completed');
      expect(await notices(runId, 'second')).not.toContainEqual(expect.stringContaining('was rebuilt'));

      // Someone (an unsandboxed agent, a person) changes a file and adds one.
      writeFileSync(path.join(view, 'README.md'), '# altered\n');
      writeFileSync(path.join(view, 'planted.js'), 'export const evil = 1;\n');
      await env.queue.add(job('third'));
      expect((await env.result(agentJobId(runId, 'third', 1))).status).toBe('completed');
      const said = await notices(runId, 'third');
      expect(said).toContainEqual(
        expect.stringMatching(
          new RegExp(
            `^the read-only view ${view.replaceAll('/', '\\/')} was rebuilt before this agent read it: its files differ from the commit \\(.*README\\.md.*planted\\.js`,
          ),
        ),
      );
      expect(readFileSync(path.join(view, 'README.md'), 'utf8')).toBe('# tiny\n');
      expect(existsSync(path.join(view, 'planted.js'))).toBe(false);
      expect(git(view, 'status', '--porcelain', '--ignored')).toBe('');
    },
    SLOW_TEST_MS,
  );

  it(
    'without bwrap have their files read-only on disk, and still go with the run',
    async () => {
      // An installation of its own: the other test's worker (with bwrap) takes none of its jobs.
      const own = await OrcaTestEnv.open();
      const repo = tinyRepo(own.dir('repo-readonly'));
      const home = own.home;
      await own.startWorker({ concurrency: 1, env: { PATH: pathWithoutBwrap(own.dir('path-without-bwrap')) } });
      const runId = testRunId('roview');
      // Without a sandbox a job runs only when it says off (--sandbox off), as the run's would.
      await own.queue.add({
        ...scriptedJob({ runId, taskId: 'look', roleName: 'explore', repo: { path: repo.dir }, base: repo.base, turns: EXPLORE_REPORT }),
        sandbox: 'off',
      });
      const result = await own.result(agentJobId(runId, 'look', 1));
      expect(result.status).toBe('completed');
      expect(result.sandbox).toBe('none');
      const [key] = readdirSync(path.join(home, 'views', runId));
      const view = path.join(home, 'views', runId, key!, repo.base);
      for (const file of ['README.md', 'src/a.js', 'src', '.']) {
        expect(statSync(path.join(view, file)).mode & 0o222, file).toBe(0);
      }
      // Checked clean all the same (a read-only mode is no change to git).
      expect(git(view, 'status', '--porcelain', '--ignored')).toBe('');
      // orca clean removes a read-only view too, once its run is over.
      const clean = await own.cli(['clean', '--older-than', '1s'], { cwd: repo.dir });
      expect(clean.code, clean.stderr).toBe(0);
      expect(clean.stdout).toContain(`removed views ${path.join(home, 'views', runId)}`);
      expect(viewsIn(home)).toEqual([]);
    },
    SLOW_TEST_MS,
  );
});
