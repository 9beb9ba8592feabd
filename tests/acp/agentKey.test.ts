import { describe, expect, it } from 'vitest';
import { MISSING_API_KEY } from '../../shared/core/model/anthropic.js';
import { makeRepo } from '../support/gitRepo.js';
import { OrcaTestEnv } from '../support/orcaEnv.js';

/**
 * orca's key is asked for where orca's own loop runs: `orca agent` with orca's own agent still
 * needs ANTHROPIC_API_KEY or --script (an ACP agent's run without it: claudeCodeAgent.test.ts).
 */
describe('orca agent without ANTHROPIC_API_KEY', () => {
  it('refuses to start orca’s own agent, naming the key', async () => {
    const env = await OrcaTestEnv.open();
    const dir = makeRepo({ 'a.txt': 'a\n' });
    const run = await env.cli(['agent', '--role', 'worker', 'Do a thing.', '--repo', dir, '--json'], {
      env: { ANTHROPIC_API_KEY: undefined },
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(MISSING_API_KEY);
  });
});
