import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSampleRepo } from '../../coordinator/demo/sampleRepo.js';
import { pushIntegration } from '../../coordinator/handoff/pushBranch.js';
import type { RunJson } from '../../coordinator/run/runResult.js';
import { packageRoot } from '../../shared/core/runtime/compiledEntry.js';
import { readRunEvents } from '../../shared/infra/board/runEvents.js';
import { git } from '../support/gitRepo.js';
import { OrcaTestEnv, SLOW_TEST_MS } from '../support/orcaEnv.js';

const SCRIPTS = path.join(packageRoot(), 'tests', 'fixtures', 'scripts');

async function orcaRun(env: OrcaTestEnv, repo: string, script: string, extra: string[]): Promise<{ code: number | null; json: RunJson }> {
  const run = await env.cli(['run', 'reword the comments', '--repo', repo, '--script', path.join(SCRIPTS, script), '--json', ...extra], {
    deadlineMs: 240_000,
  });
  try {
    return { code: run.code, json: JSON.parse(run.stdout) as RunJson };
  } catch {
    throw new Error(`orca run printed no JSON (exit ${run.code}):\n${run.stdout}\n${run.stderr}`);
  }
}

/** The body's section under `## title` (up to the next `## `). */
function section(body: string, title: string): string {
  const start = body.indexOf(`\n## ${title}\n`);
  expect(start, `section ${title}`).toBeGreaterThan(-1);
  const end = body.indexOf('\n## ', start + 1);
  return body.slice(start, end < 0 ? undefined : end);
}

/** A subtask's part of the Subtasks section. */
function subtask(body: string, id: string): string {
  const part = section(body, 'Subtasks');
  const start = part.indexOf(`### \`${id}\``);
  expect(start, `subtask ${id}`).toBeGreaterThan(-1);
  const end = part.indexOf('\n### ', start + 1);
  return part.slice(start, end < 0 ? undefined : end);
}

describe('the hand-off: --push and --pr-body', () => {
  it(
    'pushes a PASS run to a local bare remote under --branch, and describes it from its events',
    async () => {
      const env = await OrcaTestEnv.open();
      const repo = createSampleRepo(path.join(env.dir('repo'), 'shop-lib')).dir;
      const remote = path.join(env.dir('remote'), 'shop.git');
      git(env.root, 'init', '-q', '--bare', remote);
      const bodyFile = path.join(env.dir('out'), 'pr.md');
      const { code, json } = await orcaRun(env, repo, 'one-note.json', [
        '--push',
        remote,
        '--branch',
        'feature/notes',
        '--pr-body',
        bodyFile,
      ]);
      expect(code).toBe(0);
      expect(json.status).toBe('PASS');
      expect(json.handoff).toEqual({ push: { pushed: true, remote, branch: 'feature/notes', commit: json.head }, pr_body: bodyFile });
      expect(git(remote, 'rev-parse', 'refs/heads/feature/notes')).toBe(json.head);

      const body = readFileSync(bodyFile, 'utf8');
      const events = (await readRunEvents(env.redis, env.keys, json.run_id, '0', 10_000)).map(({ entry }) => entry.event);
      expect(section(body, 'Task')).toContain('> reword the comments');
      const result = events.filter((e) => e.type === 'task_result' && e.task_id === 'note').at(-1)!;
      const note = subtask(body, 'note');
      expect(note).toContain('Owned paths: `NOTES.md`');
      expect(note).toContain(`Commit: \`${result.commit}\``);
      expect(note).toContain(`transcript \`${result.transcript}\``);
      expect(note).toContain(`Cost: $${Number(result.cost_usd).toFixed(4)}`);
      const checks = section(body, 'Integration checks');
      const integrationChecks = events.filter((e) => e.type === 'check' && e.task_id === undefined);
      expect(integrationChecks.length).toBeGreaterThan(0);
      for (const check of integrationChecks) {
        expect(checks).toContain(`| \`${check.command}\` | ${check.exit_code} | ${check.tests_executed} |`);
        expect(checks).toContain(`\`${check.log}\``);
      }
      for (const gate of events.filter((e) => e.type === 'gate' && e.task_id === undefined)) {
        expect(section(body, 'Gates')).toContain(`gate \`${gate.name}\`: ${gate.reason}`);
      }
      expect(section(body, 'Verification')).toContain('Verdict: **PASS**');
      expect(section(body, 'Unverified')).toContain('Nothing the run recorded is left unverified.');
    },
    SLOW_TEST_MS,
  );

  it(
    'shows a failed gate and never a claim without evidence; a PARTIAL run is pushed only with --push-partial',
    async () => {
      const env = await OrcaTestEnv.open();
      const repo = createSampleRepo(path.join(env.dir('repo'), 'shop-lib')).dir;
      const remote = path.join(env.dir('remote'), 'shop.git');
      git(env.root, 'init', '-q', '--bare', remote);
      const bodyFile = path.join(env.dir('out'), 'pr.md');
      const { code, json } = await orcaRun(env, repo, 'claimed-not-run.json', ['--push', remote, '--push-partial', '--pr-body', bodyFile]);
      expect(code).toBe(1);
      expect(json.status).toBe('PARTIAL');
      expect(json.handoff?.push).toMatchObject({ pushed: true, branch: json.integration_branch });
      expect(git(remote, 'rev-parse', `refs/heads/${json.integration_branch}`)).toBe(json.head);
      // Without --push-partial the same run is refused, and says how to push it.
      const refused = await pushIntegration({ repo, remote, branch: 'other', partial: false }, json);
      expect(refused).toMatchObject({ pushed: false, reason: expect.stringContaining('--push-partial') });
      expect(git(remote, 'branch', '--list', 'other')).toBe('');

      const body = readFileSync(bodyFile, 'utf8');
      const events = (await readRunEvents(env.redis, env.keys, json.run_id, '0', 10_000)).map(({ entry }) => entry.event);
      const failedGates = events.filter((e) => e.type === 'gate' && e.task_id === 'liar' && e.ok === false);
      expect(failedGates.map((gate) => gate.name)).toContain('claims');
      const liar = subtask(body, 'liar');
      for (const gate of failedGates) expect(liar).toContain(`**failed** gate \`${gate.name}\`: ${gate.reason}`);
      expect(section(body, 'Gates')).toContain('`liar`: **failed** gate `claims`');
      // The liar's claimed `npm test` run left no evidence: no check is claimed for it, and its commit was not merged.
      expect(events.filter((e) => e.type === 'check' && e.task_id === 'liar')).toEqual([]);
      expect(liar).not.toContain('Check:');
      expect(liar).not.toContain('Merged into the integration branch');
      // What it wrote is quoted as its own words, never stated.
      for (const line of body.split('\n').filter((one) => one.includes('all tests pass'))) expect(line.trimStart()).toMatch(/^>/);
      expect(section(body, 'Unverified')).toContain('Subtask `liar` is failed');
      const honest = subtask(body, 'honest');
      const honestCommit = events.filter((e) => e.type === 'task_result' && e.task_id === 'honest').at(-1)!.commit;
      expect(honest).toContain(`Commit: \`${honestCommit}\``);
    },
    SLOW_TEST_MS,
  );
});
