import { describe, expect, it } from 'vitest';
import { resolveSettings } from '../../shared/core/agents/agentSettings.js';
import { opencode } from '../../shared/core/agents/opencodePreset.js';

describe('an agent’s settings as it is given them', () => {
  it('puts variables’ values in, and leaves out a setting whose variable is unset', () => {
    const value = { a: '{env:BASE}/v1', b: { c: 'x-{env:MISSING}', d: 1 }, e: ['{env:BASE}', '{env:MISSING}', 'plain'] };
    expect(resolveSettings(value, { BASE: 'http://127.0.0.1:9' })).toEqual({
      a: 'http://127.0.0.1:9/v1',
      b: { d: 1 },
      e: ['http://127.0.0.1:9', 'plain'],
    });
  });

  it('points OpenCode at ANTHROPIC_BASE_URL with the API version when it is set, and at its own default when not', () => {
    const settings = opencode.settings!.value;
    expect(resolveSettings(settings, { ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' })).toMatchObject({
      provider: { anthropic: { options: { baseURL: 'http://127.0.0.1:9/v1' } } },
      model: 'anthropic/claude-sonnet-4-5',
    });
    expect(resolveSettings(settings, {})).toMatchObject({ provider: { anthropic: { options: {} } } });
    expect(JSON.parse(opencode.setEnv.OPENCODE_PERMISSION!)).toMatchObject({ edit: 'deny', bash: 'deny', read: 'deny', 'orca_*': 'allow' });
  });
});
