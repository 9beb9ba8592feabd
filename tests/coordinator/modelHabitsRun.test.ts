import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunJson } from '../../coordinator/run/runResult.js';
import { packageRoot } from '../../shared/core/runtime/compiledEntry.js';
import { readRunEvents } from '../../shared/infra/board/runEvents.js';
import { commitFiles, git } from '../support/gitRepo.js';
import { OrcaTestEnv, SLOW_TEST_MS } from '../support/orcaEnv.js';

const SCRIPT = path.join(packageRoot(), 'tests', 'fixtures', 'scripts', 'model-habits.json');

/**
 * One scripted run whose workers have the habits of a model trained in Claude Code: one ends its
 * work with a text summary before it reports; two pipe their test run through `tail`, one with
 * passing tests, one with a failing test. The summary does not lose the work, the passing pipe
 * counts as the check, the failing one is refused whatever tail returned.
 */
describe('a run of workers with Claude Code habits, end to end', () => {
  let env: OrcaTestEnv;
  let repo: string;
  let json: RunJson;

  beforeAll(async () => {
    env = await OrcaTestEnv.open({ shared: true });
    repo = env.dir('repo');
    git(repo, 'init', '-q', '-b', 'main');
    commitFiles(
      repo,
      {
        'package.json': `${JSON.stringify({ name: 'tiny', private: true, type: 'module', scripts: { test: 'node --test' } }, null, 2)}\n`,
        'src/sum.js': 'export function sum(a, b) {\n  return a + b;\n}\n',
        'test/sum.test.js': [
          "import assert from 'node:assert/strict';",
          "import test from 'node:test';",
          "import { sum } from '../src/sum.js';",
          "test('adds', () => assert.equal(sum(2, 3), 5));",
          '',
        ].join('\n'),
      },
      'initial',
    );
    const run = await env.cli(
      ['run', 'add notes and a product', '--repo', repo, '--script', SCRIPT, '--check', 'npm test', '--json', '--workers', '2'],
      {
        deadlineMs: 280_000,
      },
    );
    try {
      json = JSON.parse(run.stdout) as RunJson;
    } catch {
      throw new Error(`orca run printed no JSON (exit ${run.code}):\n${run.stdout}\n${run.stderr}`);
    }
  }, SLOW_TEST_MS);

  afterAll(async () => {
    await env?.close();
  }, SLOW_TEST_MS);

  const task = (id: string) => json.tasks.find((one) => one.id === id)!;
  const events = async (taskId: string) =>
    (await readRunEvents(env.redis, env.keys, json.run_id, '0', 10_000))
      .map(({ entry }) => entry)
      .filter((entry) => entry.task_id === taskId);

  it('merges the worker that ended with a text summary, once it was told to Report and did', async () => {
    expect(task('summary')).toMatchObject({ status: 'verified' });
    expect(git(repo, 'show', `${json.integration_branch}:NOTES.md`)).toContain('Sums of integers are exact.');
    const summary = await events('summary');
    expect(summary.some((entry) => entry.event.type === 'assistant_text')).toBe(true);
    expect(summary.filter((entry) => entry.event.type === 'tool_call' && entry.event.name === 'Report')).toHaveLength(1);
  });

  it('accepts `node --test` exit 0 from `node --test 2>&1 | tail -5` when the tests pass', () => {
    expect(task('piped')).toMatchObject({ status: 'verified' });
    expect(task('piped').gates?.filter((gate) => !gate.ok)).toEqual([]);
    expect(git(repo, 'show', `${json.integration_branch}:src/sum.js`)).toContain('/** The sum of two numbers. */');
  });

  it('refuses it when the tests fail, though the pipe exited 0: the test stage did not', async () => {
    const broken = task('broken');
    expect(broken.status).toBe('failed');
    expect(broken.gates?.filter((gate) => !gate.ok).map((gate) => gate.name)).toEqual(['claims', 'required']);
    expect(broken.gates?.find((gate) => gate.name === 'claims')?.reason).toContain(
      '`node --test` (exit 0): its own tool log has it exiting 1, never 0',
    );
    expect(broken.gates?.find((gate) => gate.name === 'required')?.reason).toBe(
      'worker broken: required check `node --test` exited 1 in its latest run',
    );
    const refused = (await events('broken')).filter(
      (entry) => entry.event.type === 'notice' && String(entry.event.message).startsWith('Report refused by the gates'),
    );
    expect(refused).toHaveLength(2);
    expect(() => git(repo, 'show', `${json.integration_branch}:src/product.js`)).toThrow();
  });
});
