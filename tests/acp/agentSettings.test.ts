import { describe, expect, it } from 'vitest';
import { AcpAgentSchema } from '../../shared/core/agents/agentBackend.js';
import { mergeSettings, resolveOptions, resolveSettings } from '../../shared/core/agents/agentSettings.js';
import { codex } from '../../shared/core/agents/codexPreset.js';
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

  it('gives each command option whole or not at all: a variable it names, or its ifEnv, unset leaves the entry out', () => {
    const options = [
      { args: ['-c', 'plain=true'] },
      { args: ['-c', 'url="{env:BASE}"'] },
      { args: ['-c', 'both={env:BASE}', '-c', 'half={env:MISSING}'] },
      { ifEnv: 'MISSING', args: ['-c', 'gated=true'] },
    ];
    expect(resolveOptions(options, { BASE: 'http://127.0.0.1:9' })).toEqual(['-c', 'plain=true', '-c', 'url="http://127.0.0.1:9"']);
    expect(resolveOptions(options, { BASE: 'http://127.0.0.1:9', MISSING: 'x' })).toEqual([
      '-c',
      'plain=true',
      '-c',
      'url="http://127.0.0.1:9"',
      '-c',
      'both=http://127.0.0.1:9',
      '-c',
      'half=x',
      '-c',
      'gated=true',
    ]);
    // An orca.json agent's options are checked at its boundary: an empty args list is refused.
    expect(AcpAgentSchema.safeParse({ kind: 'acp', name: 'mine', command: ['mine'], options: [{ args: [] }] }).success).toBe(false);
  });

  it('gives Codex its shell off and its patches refused always, and a provider of its own only with OPENAI_BASE_URL', () => {
    const always = ['-c', 'features.shell_tool=false', '-c', 'sandbox_mode="read-only"', '-c', 'approval_policy="never"'];
    expect(resolveOptions(codex.options, {})).toEqual(always);
    const withBase = resolveOptions(codex.options, { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' });
    expect(withBase.slice(0, always.length)).toEqual(always);
    expect(withBase.slice(always.length, always.length + 2)).toEqual(['-c', 'model_provider="orca-openai"']);
    expect(withBase.at(-1)).toContain('base_url="http://127.0.0.1:9/v1"');
    expect(withBase.at(-1)).toContain('supports_websockets=false');
  });

  it('merges settings over the user’s own file key by key, orca’s winning, and names one place for them', () => {
    const user = { security: { auth: { selectedType: 'oauth-personal' } }, tools: { exclude: ['mine'] }, ui: { theme: 'dark' } };
    const ours = { security: { folderTrust: { enabled: false } }, tools: { exclude: ['run_shell_command'] } };
    expect(mergeSettings(user, ours)).toEqual({
      security: { auth: { selectedType: 'oauth-personal' }, folderTrust: { enabled: false } },
      tools: { exclude: ['run_shell_command'] },
      ui: { theme: 'dark' },
    });
    const agent = { kind: 'acp', name: 'mine', command: ['mine'] };
    expect(AcpAgentSchema.safeParse({ ...agent, settings: { file: '.mine/settings.json', value: {} } }).success).toBe(true);
    expect(AcpAgentSchema.safeParse({ ...agent, settings: { value: {} } }).success).toBe(false);
    expect(AcpAgentSchema.safeParse({ ...agent, settings: { variable: 'X', file: 'x.json', value: {} } }).success).toBe(false);
    expect(AcpAgentSchema.safeParse({ ...agent, settings: { file: '../outside.json', value: {} } }).success).toBe(false);
    expect(AcpAgentSchema.safeParse({ ...agent, settings: { file: '/etc/x.json', value: {} } }).success).toBe(false);
  });
});
