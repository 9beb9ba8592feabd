import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { matchingHooks } from '../../shared/policy/hooks/hookRunner.js';
import { loadHooks } from '../../shared/policy/hooks/hookSettings.js';
import { HooksConfigError, parseHooksConfig } from '../../shared/policy/hooks/hooksConfig.js';
import { tempDir } from '../support/tempDir.js';

const file = '/repo/.claude/settings.json';

function parseError(hooks: unknown): string {
  try {
    parseHooksConfig(hooks, file);
  } catch (error) {
    expect(error).toBeInstanceOf(HooksConfigError);
    return (error as Error).message;
  }
  throw new Error('expected the hooks to be refused');
}

function writeSettings(dir: string, name: string, settings: unknown): void {
  mkdirSync(path.join(dir, '.claude'), { recursive: true });
  writeFileSync(path.join(dir, '.claude', name), typeof settings === 'string' ? settings : JSON.stringify(settings));
}

describe('the hooks settings key', () => {
  it("accepts Claude Code's schema: command and http hooks, matchers, timeouts", () => {
    const config = parseHooksConfig(
      {
        PreToolUse: [
          { matcher: 'Bash', hooks: [{ type: 'command', command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh', timeout: 30 }] },
        ],
        PostToolUse: [
          {
            matcher: 'Edit|Write',
            hooks: [
              { type: 'http', url: 'http://localhost:8080/hooks', headers: { Authorization: 'Bearer $TOKEN' }, allowedEnvVars: ['TOKEN'] },
            ],
          },
        ],
        Stop: [{ hooks: [{ type: 'command', command: 'npm test', async: false, statusMessage: 'testing' }] }],
      },
      file,
    );
    expect(Object.keys(config.byEvent)).toEqual(['PreToolUse', 'PostToolUse', 'Stop']);
    expect(config.byEvent.PreToolUse![0]).toMatchObject({ matcher: 'Bash', source: file, hooks: [{ type: 'command', timeout: 30 }] });
  });

  it('refuses an unknown event, naming the file and listing the events orca fires', () => {
    expect(parseError({ PreToolUse: [], BeforeEdit: [] })).toBe(
      `${file} is invalid: hooks: unknown hook event "BeforeEdit". orca fires: SessionStart, SessionEnd, UserPromptSubmit, PreToolUse, PostToolUse, PostToolUseFailure, PostToolBatch, Stop, StopFailure, SubagentStart, SubagentStop, PreCompact, PostCompact, TaskCreated, TaskCompleted, WorktreeCreate, WorktreeRemove, PermissionRequest, PermissionDenied, Notification, InstructionsLoaded`,
    );
  });

  it('keeps a Claude Code event orca does not fire aside, and reads the rest of the file', () => {
    const config = parseHooksConfig({ ConfigChange: [], Stop: [{ hooks: [{ type: 'command', command: 'true' }] }] }, file);
    expect(Object.keys(config.byEvent)).toEqual(['Stop']);
    expect(config.notFired).toEqual([{ event: 'ConfigChange', source: file }]);
  });

  it('names the path of a bad entry', () => {
    expect(parseError({ PreToolUse: [{ hooks: [{ type: 'command' }] }] })).toBe(
      `${file} is invalid: hooks.PreToolUse[0].hooks[0].command: Invalid input: expected string, received undefined`,
    );
    expect(parseError({ Stop: [{ hooks: [{ type: 'command', command: 'x', timeout: -1 }] }] })).toContain(
      'hooks.Stop[0].hooks[0].timeout: Too small',
    );
    expect(parseError({ Stop: [{ hooks: [{ type: 'command', command: 'x', tiemout: 5 }] }] })).toContain(
      'hooks.Stop[0].hooks[0]: Unrecognized key: "tiemout"',
    );
    expect(parseError({ Stop: { hooks: [] } })).toContain('hooks.Stop: Invalid input: expected array, received object');
  });

  it('refuses an invalid regular expression in a matcher, naming where it is', () => {
    expect(parseError({ PreToolUse: [{ matcher: 'Edit(', hooks: [] }] })).toMatch(
      /^\/repo\/\.claude\/settings\.json is invalid: hooks\.PreToolUse\[0\]\.matcher: matcher "Edit\(" is not a valid regular expression/,
    );
  });

  it('refuses hook types and fields orca cannot honour, saying what to do', () => {
    expect(parseError({ Stop: [{ hooks: [{ type: 'prompt', prompt: 'is it done?' }] }] })).toContain(
      'hooks.Stop[0].hooks[0].type: type must be "command" or "http" (Claude Code\'s prompt, agent and mcp_tool hooks are not supported by orca)',
    );
    expect(parseError({ Stop: [{ hooks: [{ type: 'command', command: 'x', async: true }] }] })).toContain(
      'hooks.Stop[0].hooks[0].async: orca waits for every hook and uses its answer; async hooks are not supported',
    );
    expect(parseError({ PreToolUse: [{ hooks: [{ type: 'command', command: 'x', if: 'Bash(git *)' }] }] })).toContain(
      'hooks.PreToolUse[0].hooks[0].if: the "if" condition is not supported by orca',
    );
    expect(parseError({ Stop: [{ hooks: [{ type: 'http', url: 'file:///etc/passwd' }] }] })).toContain(
      'hooks.Stop[0].hooks[0].url: url must be an http:// or https:// URL',
    );
  });
});

describe('loading hooks from settings files', () => {
  it("runs the hooks of the user's, the project's and the local settings together", () => {
    const project = tempDir();
    const home = tempDir();
    writeSettings(home, 'settings.json', { hooks: { Stop: [{ hooks: [{ type: 'command', command: 'user-hook' }] }] } });
    writeSettings(project, 'settings.json', {
      permissions: { allow: ['Bash(npm test)'] },
      hooks: { Stop: [{ hooks: [{ type: 'command', command: 'project-hook' }] }] },
    });
    writeSettings(project, 'settings.local.json', { hooks: { Stop: [{ hooks: [{ type: 'command', command: 'local-hook' }] }] } });
    const hooks = loadHooks(project, { userClaudeDir: path.join(home, '.claude') });
    expect(matchingHooks(hooks, 'Stop', {}).map((hook) => (hook.type === 'command' ? hook.command : ''))).toEqual([
      'user-hook',
      'project-hook',
      'local-hook',
    ]);
    expect(hooks.byEvent.Stop!.map((group) => group.source)).toEqual([
      path.join(home, '.claude', 'settings.json'),
      '.claude/settings.json',
      '.claude/settings.local.json',
    ]);
  });

  it('names the file that is not valid JSON', () => {
    const project = tempDir();
    writeSettings(project, 'settings.local.json', '{ "hooks": { ');
    expect(() => loadHooks(project, { userClaudeDir: tempDir() })).toThrow(/^\.claude\/settings\.local\.json is not valid JSON: /);
  });

  it('names the file whose hooks are invalid', () => {
    const project = tempDir();
    writeSettings(project, 'settings.json', { hooks: { Stop: [{ hooks: [{ type: 'command', command: '' }] }] } });
    expect(() => loadHooks(project, { userClaudeDir: tempDir() })).toThrow(
      '.claude/settings.json is invalid: hooks.Stop[0].hooks[0].command: command must not be empty',
    );
  });

  it('disableAllHooks in any file turns every hook off', () => {
    const project = tempDir();
    writeSettings(project, 'settings.json', { hooks: { Stop: [{ hooks: [{ type: 'command', command: 'x' }] }] } });
    writeSettings(project, 'settings.local.json', { disableAllHooks: true });
    expect(loadHooks(project, { userClaudeDir: tempDir() }).byEvent).toEqual({});
  });

  it('no settings files: no hooks', () => {
    expect(loadHooks(tempDir(), { userClaudeDir: tempDir() }).byEvent).toEqual({});
  });
});
