import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSampleRepo } from '../../coordinator/demo/sampleRepo.js';
import type { RunJson } from '../../coordinator/run/runResult.js';
import { packageRoot } from '../../shared/core/runtime/compiledEntry.js';
import { readRunBoard } from '../../shared/infra/board/readBoard.js';
import { readRunEvents } from '../../shared/infra/board/runEvents.js';
import { agentJobId } from '../../shared/infra/queue/agentQueue.js';
import { git } from '../support/gitRepo.js';
import { OrcaTestEnv, SLOW_TEST_MS } from '../support/orcaEnv.js';

const SCRIPT = path.join(packageRoot(), 'tests', 'fixtures', 'scripts', 'unproven-work.json');

/**
 * One scripted run whose every claim is false: an Explore agent cites a missing file, a line past
 * the end and a symbol that is not there (beside one true finding); one worker edits and claims
 * no check; another ran its check before its last edit and claims it; a third owns up to failure.
 * Nothing may merge, no Verification agent may be started on the unchanged base, and the JSON
 * must say why.
 */
describe('a run of unproven work, end to end', () => {
  let env: OrcaTestEnv;
  let repo: string;
  let code: number | null;
  let json: RunJson;
  let stderr: string;

  beforeAll(async () => {
    env = await OrcaTestEnv.open({ shared: true });
    repo = createSampleRepo(path.join(env.dir('repo'), 'shop-lib')).dir;
    const run = await env.cli(['run', 'reword the money helpers', '--repo', repo, '--script', SCRIPT, '--json', '--workers', '2'], {
      deadlineMs: 240_000,
    });
    ({ code, stderr } = run);
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

  it('is FAIL: nothing merged, the integration branch is at the base, and no Verification job ran', async () => {
    expect(code, stderr).toBe(1);
    expect(json.status).toBe('FAIL');
    expect(json.detail).toBe(
      'nothing was merged: the integration branch is still at the base (lazy failed, stale failed, honest failed); nothing was verified',
    );
    expect(json.head).toBe(json.base);
    expect(git(repo, 'rev-parse', json.integration_branch)).toBe(json.base);
    expect(json.verification).toBeNull();
    expect(json.gates).toEqual([]);
    const events = (await readRunEvents(env.redis, env.keys, json.run_id, '0', 10_000)).map(({ entry }) => entry);
    const jobs = events.filter((entry) => entry.event.type === 'task_created').map((entry) => entry.event.task_id as string);
    expect(jobs.filter((id) => id.startsWith('_verify') || id.startsWith('_fix'))).toEqual([]);
    expect(await env.queue.getJob(agentJobId(json.run_id, '_verify-1', 1))).toBeUndefined();
  });

  it('fails the worker that edited and claimed no check, naming the missing required check in detail and gates', () => {
    const lazy = task('lazy');
    expect(lazy.status).toBe('failed');
    expect(lazy.detail).toMatch(
      /^its last Report was refused by the gates \(required: worker lazy: required check `npm test` never ran in its session\); then no_tool_use: /,
    );
    expect(lazy.gates?.map((gate) => [gate.name, gate.ok])).toEqual([
      ['zero_tests', true],
      ['stale', true],
      ['target', true],
      ['assertions', true],
      ['claims', true],
      ['required', false],
    ]);
    expect(lazy.gates?.find((gate) => gate.name === 'required')?.reason).toBe(
      'worker lazy: required check `npm test` never ran in its session',
    );
  });

  it('fails the worker that ran its check before its last edit the same way (its subtask named none: the run’s checks are required)', () => {
    const stale = task('stale');
    expect(stale.status).toBe('failed');
    expect(stale.detail).toContain('required check `npm test` last ran before the last change to the tree');
    expect(stale.detail).toContain('src/invoice.ts');
    const failed = stale.gates?.filter((gate) => !gate.ok).map((gate) => gate.name);
    expect(failed).toEqual(['stale', 'required']);
  });

  it('fails, on its own word, the worker that reported its subtask unresolved, without sending its report back', async () => {
    const honest = task('honest');
    expect(honest.status).toBe('failed');
    expect(honest.detail).toBe("its worker reported it unresolved: the comment's new wording was not agreed");
    const events = (await readRunEvents(env.redis, env.keys, json.run_id, '0', 10_000)).map(({ entry }) => entry);
    const refused = events.filter(
      (entry) => entry.task_id === 'honest' && entry.event.type === 'notice' && String(entry.event.message).startsWith('Report refused'),
    );
    expect(refused).toEqual([]);
    expect(honest.gates?.find((gate) => gate.name === 'required')).toMatchObject({ ok: false });
  });

  it('checks every explore finding at the base commit: the false ones are unverified, with reasons; the true one stays', () => {
    expect(json.findings).toHaveLength(4);
    expect(json.findings[0]).toEqual({
      fact: 'src/cart.ts defines a private `toDollars` helper',
      evidence: 'src/cart.ts:8',
      verified: true,
    });
    const [, missing, pastEnd, absent] = json.findings;
    expect(missing).toMatchObject({
      evidence: 'src/missing.ts:10',
      verified: false,
      reason: expect.stringMatching(/^src\/missing\.ts does not exist at the base commit/),
    });
    expect(pastEnd).toMatchObject({
      verified: false,
      reason: expect.stringMatching(/^src\/cart\.ts has 19 lines at the base commit [0-9a-f]{12}; line 400 is past its end$/),
    });
    expect(absent).toMatchObject({
      verified: false,
      reason: expect.stringMatching(/^`applyDiscount` does not occur in src\/cart\.ts lines 12–19/),
    });
  });

  it('gives the Plan agent the true finding as a fact and the others as unverified, with the reasons', async () => {
    const plan = await env.queue.getJob(agentJobId(json.run_id, '_plan', 1));
    const prompt = plan!.data.prompt;
    const [established, rest] = prompt.split('\nUnverified:');
    expect(established).toContain('- src/cart.ts defines a private `toDollars` helper (src/cart.ts:8)');
    expect(established).not.toContain('missing.ts');
    expect(established).not.toContain('applyDiscount');
    const unverified = rest!.split('\nQuestions they left open:')[0]!;
    expect(unverified).toContain(
      '- `loadSavedCart()` restores the cart from disk (src/missing.ts:10): src/missing.ts does not exist at the base commit',
    );
    expect(unverified).toContain('- src/cart.ts prints the cart total (src/cart.ts:400): src/cart.ts has 19 lines');
    expect(unverified).toContain('- `applyDiscount` lowers the cart total (src/cart.ts:17): `applyDiscount` does not occur');
    expect(unverified).not.toContain('toDollars');
  });

  it('shows the checked findings and the files read on the board', async () => {
    const board = await readRunBoard(env.redis, env.keys, json.run_id);
    expect(board!.run.facts.map((fact) => fact.verified)).toEqual([true, false, false, false]);
    expect(board!.run.files_read).toEqual([{ path: 'src/cart.ts', partial: false, verified: true }]);
  });
});
