import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSettings, SettingsError, userClaudeDir } from '../../shared/policy/settings/loadSettings.js';
import { tempDir } from '../support/tempDir.js';

function project(files: Record<string, string>): { root: string; user: string } {
  const root = tempDir('orca-settings-project-');
  const user = tempDir('orca-settings-user-');
  for (const [name, text] of Object.entries(files)) {
    const file = name.startsWith('~/') ? path.join(user, name.slice(2)) : path.join(root, name);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  return { root, user };
}

describe('loading settings', () => {
  it('reads the local, project and user files, most specific first, with their raw JSON', () => {
    const hooks = { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'check.sh' }] }] };
    const { root, user } = project({
      '.claude/settings.json': JSON.stringify({ permissions: { deny: ['Bash(rm -rf *)'] }, hooks }),
      '.claude/settings.local.json': JSON.stringify({ permissions: { allow: ['Bash(npm test:*)'] } }),
      '~/settings.json': JSON.stringify({ permissions: { ask: ['Edit'] }, model: 'x' }),
    });
    const loaded = loadSettings({ projectRoot: root, userClaudeDir: user });
    expect(loaded.sources.map((source) => [source.scope, source.label])).toEqual([
      ['local', '.claude/settings.local.json'],
      ['project', '.claude/settings.json'],
      ['user', path.join(user, 'settings.json')],
    ]);
    expect(loaded.sources[1]!.raw.hooks).toEqual(hooks);
    expect(loaded.sources[1]!.settings.permissions?.deny).toEqual(['Bash(rm -rf *)']);
    // Keys orca does not read are kept, for Claude Code and the hooks layer.
    expect(loaded.sources[2]!.settings).toMatchObject({ model: 'x' });
  });

  it('treats missing files as no settings', () => {
    const { root, user } = project({});
    expect(loadSettings({ projectRoot: root, userClaudeDir: user }).sources).toEqual([]);
  });

  it('finds the user folder from ORCA_USER_CLAUDE_DIR, then CLAUDE_CONFIG_DIR, then HOME', () => {
    expect(userClaudeDir({ ORCA_USER_CLAUDE_DIR: '/a', CLAUDE_CONFIG_DIR: '/b', HOME: '/h' })).toBe('/a');
    expect(userClaudeDir({ CLAUDE_CONFIG_DIR: '/b', HOME: '/h' })).toBe('/b');
    expect(userClaudeDir({ HOME: '/h' })).toBe('/h/.claude');
    const { root, user } = project({ '~/settings.json': '{"permissions":{"allow":["Read"]}}' });
    expect(loadSettings({ projectRoot: root, env: { ORCA_USER_CLAUDE_DIR: user } }).sources[0]!.scope).toBe('user');
  });

  it('names the file and the field when a value has the wrong type', () => {
    const { root, user } = project({ '.claude/settings.json': JSON.stringify({ permissions: { allow: ['Read', 42] } }) });
    expect(() => loadSettings({ projectRoot: root, userClaudeDir: user })).toThrow(SettingsError);
    expect(() => loadSettings({ projectRoot: root, userClaudeDir: user })).toThrow(
      /^\.claude\/settings\.json is invalid: permissions\.allow\[1\]: .*string/,
    );
  });

  it('names the file and where the JSON breaks', () => {
    const { root, user } = project({
      '.claude/settings.local.json': '{\n  "permissions": {\n    "allow": [,]\n  }\n}',
      '~/settings.json': '{\n  "permissions": {}\n',
    });
    expect(() => loadSettings({ projectRoot: root, userClaudeDir: user })).toThrow(
      /^\.claude\/settings\.local\.json is not valid JSON: .*"allow": \[,\]/,
    );
    writeFileSync(path.join(root, '.claude', 'settings.local.json'), '{}');
    expect(() => loadSettings({ projectRoot: root, userClaudeDir: user })).toThrow(
      /settings\.json is not valid JSON: .*(end of JSON input|line 3)/,
    );
  });

  it('refuses a file that is not a JSON object', () => {
    const { root, user } = project({ '~/settings.json': '["Bash"]' });
    expect(() => loadSettings({ projectRoot: root, userClaudeDir: user })).toThrow(/settings\.json must hold a JSON object/);
  });

  it('says when a file exists but cannot be read', () => {
    const { root, user } = project({});
    mkdirSync(path.join(root, '.claude', 'settings.json'), { recursive: true });
    expect(() => loadSettings({ projectRoot: root, userClaudeDir: user })).toThrow(/^\.claude\/settings\.json cannot be read: EISDIR/);
  });

  it('checks sandbox settings too', () => {
    const { root, user } = project({ '.claude/settings.json': JSON.stringify({ sandbox: { network: { allowedDomains: 'github.com' } } }) });
    expect(() => loadSettings({ projectRoot: root, userClaudeDir: user })).toThrow(/sandbox\.network\.allowedDomains: .*array/);
  });
});
