import { readFileSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { failureText, outcomeText } from '../../coordinator/run/integrationChecks.js';
import { runCheck } from '../../shared/infra/verify/checks/checkRun.js';
import { checkLauncher } from '../../shared/infra/verify/checks/checkSandbox.js';
import { treeSnapshot } from '../../shared/infra/verify/evidence/treeHash.js';
import { makeRepo } from '../support/gitRepo.js';
import { processesMatching, waitForNoProcess } from '../support/processTable.js';
import { tempDir } from '../support/tempDir.js';

const NODE_TESTS = [
  "import test from 'node:test';",
  "import assert from 'node:assert';",
  "import { add } from './add.mjs';",
  "test('adds', () => assert.equal(add(1, 2), 3));",
  "test('adds negatives', () => assert.equal(add(-1, -2), -3));",
].join('\n');

function project(): string {
  return makeRepo({ 'add.mjs': 'export const add = (a, b) => a + b;\n', 'add.test.mjs': NODE_TESTS, '.gitignore': 'out/\n' });
}

const savedKey = process.env.ANTHROPIC_API_KEY;
afterEach(() => {
  if (savedKey === undefined) delete process.env.ANTHROPIC_API_KEY;
  else process.env.ANTHROPIC_API_KEY = savedKey;
});

describe('running a check', () => {
  it('records the command, the tree BEFORE it ran, the exit code, the times, the whole output and the counts', async () => {
    const dir = project();
    const before = await treeSnapshot(dir);
    // The check itself changes a tracked file: the evidence must still name the tree it started on.
    const evidence = await runCheck({ command: 'node --test add.test.mjs && echo touched >> add.mjs' }, { cwd: dir, logDir: tempDir() });
    expect(evidence.command).toBe('node --test add.test.mjs && echo touched >> add.mjs');
    expect(evidence.tree).toBe(before.digest);
    expect((await treeSnapshot(dir)).digest).not.toBe(before.digest);
    expect(evidence).toMatchObject({ exit_code: 0, signal: null, outcome: 'exited', ran_by: 'host', cwd: dir });
    expect(evidence.duration_ms).toBe(evidence.finished_at - evidence.started_at);
    expect(readFileSync(evidence.log, 'utf8')).toContain('# pass 2');
    expect(evidence.counts).toMatchObject({ known: true, runners: ['node:test'], executed: 2, passed: 2, failed: 0 });
    expect(readFileSync(evidence.tree_manifest!, 'utf8')).toContain('\tadd.mjs\n');
  });

  it('keeps a failing check as evidence, with stderr in the log, and a long output whole', async () => {
    const dir = project();
    const evidence = await runCheck(
      { command: `head -c ${3 * 1024 * 1024} /dev/zero | tr '\\0' x; echo 'BROKEN AT THE END' >&2; exit 3` },
      { cwd: dir, logDir: tempDir() },
    );
    expect(evidence).toMatchObject({ exit_code: 3, outcome: 'exited' });
    const log = readFileSync(evidence.log, 'utf8');
    expect(log.length).toBeGreaterThan(3 * 1024 * 1024);
    expect(log).toContain('BROKEN AT THE END');
    expect(evidence.counts.known).toBe(false);
  });

  it('stops a check at its timeout, with everything it started', async () => {
    const dir = project();
    const marker = 'sleep 61.4217';
    const evidence = await runCheck(
      { command: `(${marker} &); ${marker}`, timeout_ms: 300 },
      { cwd: dir, logDir: tempDir(), killGraceMs: 200 },
    );
    expect(evidence).toMatchObject({ outcome: 'timed_out', exit_code: null });
    expect(await waitForNoProcess(marker)).toEqual([]);
  });

  it.each([
    ['plainly', undefined],
    ['in the sandbox', 'bwrap'],
  ] as const)(
    'stops a timed-out check with its whole process group, a child that ignores SIGTERM included, and says so (%s)',
    async (_, how) => {
      const dir = project();
      const marker = how ? 'sleep 64.2719' : 'sleep 63.7183';
      const launcher = how
        ? checkLauncher({ mode: 'auto', worktree: dir, tempDir: tempDir(), network: 'none', domains: [], readable: [] })
        : undefined;
      // The child ignores SIGTERM (an ignored signal stays ignored across exec): only the group's SIGKILL ends it.
      const evidence = await runCheck(
        { command: `(trap '' TERM; echo started; exec ${marker}) & sleep 0.2; wait`, timeout_ms: 500 },
        { cwd: dir, logDir: tempDir(), killGraceMs: 200, launcher },
      );
      expect(evidence).toMatchObject({ outcome: 'timed_out', exit_code: null });
      expect(readFileSync(evidence.log, 'utf8')).toContain('started');
      expect(await waitForNoProcess(marker)).toEqual([]);
      expect(outcomeText(evidence)).toMatch(/^timed out after \d+ s and was stopped with its whole process group$/);
      expect(failureText(evidence)).toBe(`\`${evidence.command}\` ${outcomeText(evidence)} (its output: ${evidence.log})`);
    },
  );

  it('stops a check when the run is aborted', async () => {
    const dir = project();
    const controller = new AbortController();
    const marker = 'sleep 62.3141';
    const running = runCheck({ command: marker }, { cwd: dir, logDir: tempDir(), signal: controller.signal, killGraceMs: 200 });
    for (let tries = 0; processesMatching(marker).length === 0 && tries < 400; tries += 1)
      await new Promise((resolve) => setTimeout(resolve, 25));
    controller.abort();
    expect(await running).toMatchObject({ outcome: 'aborted', exit_code: null });
    expect(processesMatching(marker)).toEqual([]);
  });

  it('counts from JUnit XML the check wrote, and never from a report older than the run', async () => {
    const dir = project();
    const xml =
      '<testsuites><testsuite name="s"><testcase name="a"/><testcase name="b"><failure message="no"/></testcase><testcase name="c"><skipped/></testcase></testsuite></testsuites>';
    writeFileSync(path.join(dir, 'xml.txt'), xml);
    const fresh = await runCheck(
      { command: 'mkdir -p out && cp xml.txt out/junit.xml && echo done', junit: ['out/*.xml'] },
      { cwd: dir, logDir: tempDir() },
    );
    expect(fresh.counts).toEqual({
      known: true,
      source: 'junit',
      runners: ['junit'],
      executed: 2,
      passed: 1,
      failed: 1,
      skipped: 1,
      todo: 0,
    });

    const hourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(path.join(dir, 'out/junit.xml'), hourAgo, hourAgo);
    const old = await runCheck({ command: 'node --test add.test.mjs', junit: ['out/*.xml'] }, { cwd: dir, logDir: tempDir() });
    expect(old.counts).toMatchObject({ known: true, source: 'output', runners: ['node:test'], executed: 2 });
  });

  it("runs without orca's secrets, with the extra environment and nothing else added", async () => {
    process.env.ANTHROPIC_API_KEY = 'sk-test-secret';
    const dir = project();
    const evidence = await runCheck(
      { command: 'echo "key=[$ANTHROPIC_API_KEY] ci=[${CI-unset}] port=$PORT"' },
      { cwd: dir, logDir: tempDir(), env: { PORT: '4321' } },
    );
    expect(readFileSync(evidence.log, 'utf8').trim()).toBe(`key=[] ci=[${process.env.CI ?? 'unset'}] port=4321`);
  });

  it('refuses to run in a folder outside git: there is no tree to name', async () => {
    await expect(runCheck({ command: 'true' }, { cwd: tempDir(), logDir: tempDir() })).rejects.toThrow(/cannot hash the tree/);
  });
});
