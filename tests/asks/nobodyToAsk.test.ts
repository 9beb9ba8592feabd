import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ScriptFile } from '../../shared/core/model/scriptFile.js';
import { OrcaTestEnv, SLOW_TEST_MS } from '../support/orcaEnv.js';
import { reportTurn, toolOutcomes, toolTurn } from '../support/scriptedJobs.js';
import { agentEnv, askRepo, publishedCommands, streamEntries } from './asksKit.js';

/**
 * Nothing waits on nobody. A role's mode is its boundary: what it forbids is refused at once with
 * the reason, never asked. And a run with no terminal to ask at and no --ask-timeout refuses a
 * request at once, in one line saying how to allow it, instead of waiting 10 minutes for an answer
 * nobody is there to give.
 */

function scriptFile(env: OrcaTestEnv, script: ScriptFile): string {
  const file = path.join(env.dir('script'), 'script.json');
  writeFileSync(file, JSON.stringify(script));
  return file;
}

interface AgentJson {
  run_id: string;
  task_id: string;
  status: string;
}

describe('nothing waits on nobody', { timeout: SLOW_TEST_MS }, () => {
  it("an Explore agent's writing Bash is refused at once, with the reason, and nobody is asked", async () => {
    const env = await OrcaTestEnv.open();
    const setup = askRepo(env);
    const script = scriptFile(env, {
      latency_ms: 0,
      agents: [
        {
          when: { role: 'explore' },
          turns: [
            toolTurn('Bash', { command: 'touch x' }),
            { tools: [{ name: 'Report', input: { findings: [], files: [], questions: ['could not write x'] } }] },
          ],
        },
      ],
    });
    // A terminal would make no difference: the boundary is not a question.
    const run = await env.cli([
      'agent',
      '--role',
      'explore',
      'look',
      '--repo',
      setup.repo,
      '--script',
      script,
      '--json',
      '--ask-timeout',
      '10m',
    ]);
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout) as AgentJson;
    const [touch] = await toolOutcomes(env.redis, env.keys, out.run_id, out.task_id);
    expect(touch).toMatchObject({ name: 'Bash', isError: true });
    expect(touch!.preview).toContain('this session runs in read-only');
    expect(touch!.preview).toContain('this role may not change anything, so the call is refused');
    const events = (await streamEntries(env, out.run_id)).map((entry) => entry.event);
    expect(events.filter((event) => event.type === 'permission_request')).toEqual([]);
    expect(events).toContainEqual(expect.objectContaining({ type: 'permission', tool: 'Bash', decision: 'deny', by: 'mode:read-only' }));
  });

  it('orca agent --json with an ask rule, no terminal and no --ask-timeout refuses the ask at once, saying how to allow it', async () => {
    const env = await OrcaTestEnv.open();
    const setup = askRepo(env);
    const script = scriptFile(env, {
      latency_ms: 0,
      agents: [{ when: { role: 'worker' }, turns: [toolTurn('Bash', { command: 'npm publish' }), reportTurn('left the publish')] }],
    });
    const run = await env.cli(['agent', '--role', 'worker', 'publish', '--repo', setup.repo, '--script', script, '--json'], {
      env: agentEnv(setup),
    });
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout) as AgentJson;
    expect(out.status).toBe('completed');
    const events = (await streamEntries(env, out.run_id)).map((entry) => entry.event);
    const refusal = events.find((event) => event.type === 'permission' && event.decision === 'deny');
    expect(String(refusal?.reason)).toMatch(
      /refused: nobody can answer this run \(no terminal, no --ask-timeout\): allow it with --yes-to "Bash\(npm publish:\*\)", or pass --ask-timeout DURATION to wait for orca allow or the board$/,
    );
    expect(publishedCommands(setup)).toEqual([]);
    expect(events.filter((event) => event.type === 'permission_request')).toEqual([]);
  });
});
