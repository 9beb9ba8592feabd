import { readFileSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { treeSnapshot } from '../../shared/infra/verify/evidence/treeHash.js';
import { tempDir } from '../support/tempDir.js';
import { addProject, bash, report, runWorker, TEST_COMMAND } from './traps/trapKit.js';

describe("the host's record of an agent's checks", () => {
  it('records each check command with its tree, exit code and counts, and leaves other commands alone', async () => {
    const { dir } = addProject();
    const tree = await treeSnapshot(dir);
    const run = await runWorker({ root: dir, turns: [bash('echo hello'), bash(TEST_COMMAND), bash('npm test'), report([])] });
    const evidence = run.recorder.evidence();
    expect(evidence.map((one) => [one.command, one.exit_code, one.outcome, one.ran_by, one.tree])).toEqual([
      [TEST_COMMAND, 0, 'exited', 'agent', tree.digest],
      ['npm test', 0, 'exited', 'agent', tree.digest],
    ]);
    expect(evidence[0]!.counts).toMatchObject({ known: true, runners: ['node:test'], executed: 2 });
    expect(evidence[0]!.tool_use_id).toBe(run.session.ledger.byName('Bash')[1]!.id);
    expect(readFileSync(evidence[0]!.log, 'utf8')).toContain('# pass 2');
  });

  it('counts from the whole output when Bash spilled it to a file', async () => {
    const { dir } = addProject();
    const run = await runWorker({ root: dir, turns: [bash(`${TEST_COMMAND} && head -c 3000000 /dev/zero | tr '\\0' y`), report([])] });
    const [evidence] = run.recorder.evidence();
    expect(evidence!.log).toMatch(/bash-output\/.*\.stdout\.txt$/);
    expect(statSync(evidence!.log).size).toBeGreaterThan(3_000_000);
    expect(evidence!.counts).toMatchObject({ known: true, executed: 2 });
  });

  it('keeps a check that timed out as one without an exit code', async () => {
    const { dir } = addProject();
    const run = await runWorker({
      root: dir,
      turns: [{ tools: [{ name: 'Bash', input: { command: 'sleep 30 && npm test', timeout: 300 } }] }, report([])],
    });
    expect(run.recorder.evidence().map((one) => [one.outcome, one.exit_code])).toEqual([['timed_out', null]]);
  });

  it('outside git there is no tree, and the evidence says so', async () => {
    const root = tempDir();
    const run = await runWorker({ root, turns: [bash('node --test'), report([])] });
    expect(run.recorder.evidence()[0]!.tree).toMatch(/^none: cannot hash the tree at /);
  });
});
