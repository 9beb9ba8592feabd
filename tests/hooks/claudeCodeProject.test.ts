import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AgentEvent } from '../../shared/core/events/agentEvent.js';
import { runSession } from '../../shared/core/loop/query.js';
import { AgentSession } from '../../shared/core/loop/session.js';
import { textOf } from '../../shared/core/model/message.js';
import { ScriptedModel } from '../../shared/core/model/scripted.js';
import { parseScript, type ScriptTurn } from '../../shared/core/model/scriptFile.js';
import type { PermissionMode } from '../../shared/core/tool/permissionMode.js';
import { modeOnlySlots } from '../../shared/core/tool/pipeline.js';
import { loadHooks } from '../../shared/policy/hooks/hookSettings.js';
import { createStopCheck } from '../../shared/policy/hooks/stopHooks.js';
import { createHarnessSlots } from '../../shared/policy/hooks/toolSlots.js';
import { createPermissionDecider } from '../../shared/policy/permissions/permissionSlot.js';
import { PermissionPolicy } from '../../shared/policy/permissions/policy.js';
import { DenyPrompter } from '../../shared/policy/permissions/prompter.js';
import { loadSettings } from '../../shared/policy/settings/loadSettings.js';
import { bashTool } from '../../shared/tools/bash.js';
import { editTool } from '../../shared/tools/edit.js';
import { readTool } from '../../shared/tools/read.js';
import { writeTool } from '../../shared/tools/write.js';
import { tempDir } from '../support/tempDir.js';
import { fixture } from './hookTestKit.js';

/**
 * A project set up as for Claude Code: hook scripts in .claude/hooks, wired in
 * .claude/settings.json with "$CLAUDE_PROJECT_DIR" paths, driven through a real agent session.
 */

function claudeCodeProject(hooks: Record<string, unknown>, scripts: string[], settings: Record<string, unknown> = {}): string {
  const project = tempDir('orca-cc-project-');
  mkdirSync(path.join(project, '.claude', 'hooks'), { recursive: true });
  for (const script of scripts) copyFileSync(fixture(script), path.join(project, '.claude', 'hooks', script));
  writeFileSync(path.join(project, '.claude', 'settings.json'), JSON.stringify({ ...settings, hooks }, null, 2));
  return project;
}

const projectHook = (script: string) => ({ type: 'command', command: `"$CLAUDE_PROJECT_DIR"/.claude/hooks/${script}` });

async function runAgent(project: string, turns: ScriptTurn[], options: { decider?: 'mode' | 'settings'; mode?: PermissionMode } = {}) {
  const userClaudeDir = tempDir();
  const hooks = loadHooks(project, { userClaudeDir });
  const permission =
    options.decider === 'settings'
      ? createPermissionDecider({
          policy: PermissionPolicy.fromSettings(loadSettings({ projectRoot: project, userClaudeDir })),
          prompter: new DenyPrompter(),
        })
      : modeOnlySlots.permission;
  const session = new AgentSession({
    role: 'worker',
    model: new ScriptedModel(parseScript({ agents: [{ when: { role: 'worker' }, turns }] }, 'test script'), {
      role: 'worker',
      prompt: 'do it',
    }),
    systemPrompt: 'You are a worker.',
    tools: [readTool, writeTool, editTool, bashTool],
    outputSchema: z.object({ summary: z.string() }),
    workspaceRoot: project,
    sessionDir: path.join(tempDir('orca-session-'), 'session'),
    mode: options.mode ?? 'full-access',
    slots: createHarnessSlots({ hooks, permission }),
    stopCheck: createStopCheck(hooks),
  });
  const events: AgentEvent[] = [];
  const result = await runSession(session, 'do it', (event) => events.push(event));
  const toolResults = session.messages.flatMap((message) =>
    message.content.flatMap((block) => (block.type === 'tool_result' ? [block] : [])),
  );
  const userTexts = session.messages.filter((message) => message.role === 'user').map(textOf);
  return { result, events, toolResults, userTexts, hookEvents: events.filter((event) => event.type === 'hook') };
}

const report = (summary: string): ScriptTurn => ({ tools: [{ name: 'Report', input: { summary } }] });

describe('Claude Code hook scripts, unchanged, in an agent session', () => {
  it('a PreToolUse validator on Bash keeps the agent from running rm -rf, and lets the next command through', async () => {
    const project = claudeCodeProject({ PreToolUse: [{ matcher: 'Bash', hooks: [projectHook('block-dangerous-bash.sh')] }] }, [
      'block-dangerous-bash.sh',
    ]);
    mkdirSync(path.join(project, 'build'));
    writeFileSync(path.join(project, 'build', 'keep.txt'), 'keep');

    const run = await runAgent(project, [
      { tools: [{ name: 'Bash', input: { command: 'cd build && rm -rf .' } }] },
      { tools: [{ name: 'Bash', input: { command: 'ls build' } }] },
      report('done'),
    ]);

    expect(run.result.reason).toBe('report');
    expect(existsSync(path.join(project, 'build', 'keep.txt'))).toBe(true);
    expect(run.toolResults[0]).toMatchObject({
      is_error: true,
      content: expect.stringContaining('Bash was blocked by a PreToolUse hook: Blocked: "cd build && rm -rf ." is forbidden'),
    });
    expect(run.toolResults[1]!.content).toContain('keep.txt');
    expect(run.hookEvents.map((event) => event.type === 'hook' && [event.event, event.outcome, event.exit_code])).toEqual([
      ['PreToolUse', 'block', 2],
      ['PreToolUse', 'ok', 0],
    ]);
  });

  it('a PostToolUse formatter on Edit|Write formats the file the agent wrote', async () => {
    const project = claudeCodeProject({ PostToolUse: [{ matcher: 'Edit|Write', hooks: [projectHook('format-edited-file.sh')] }] }, [
      'format-edited-file.sh',
    ]);

    const run = await runAgent(project, [
      { tools: [{ name: 'Write', input: { file_path: 'src/a.ts', content: 'const a = 1;   \nexport { a };\t\n' } }] },
      // The formatter changed the file after the write: it is read again before the edit, as in Claude Code.
      { tools: [{ name: 'Read', input: { file_path: 'src/a.ts' } }] },
      { tools: [{ name: 'Edit', input: { file_path: 'src/a.ts', old_string: 'const a = 1;', new_string: 'const a = 2;    ' } }] },
      report('written'),
    ]);

    expect(run.result.reason).toBe('report');
    expect(readFileSync(path.join(project, 'src', 'a.ts'), 'utf8')).toBe('const a = 2;\nexport { a };\n');
    expect(run.hookEvents.map((event) => event.type === 'hook' && [event.event, event.outcome])).toEqual([
      ['PostToolUse', 'ok'],
      ['PostToolUse', 'ok'],
    ]);
  });

  it('a Stop hook keeps the agent working until the tests pass', async () => {
    const project = claudeCodeProject({ Stop: [{ hooks: [projectHook('stop-until-tests-pass.sh')] }] }, ['stop-until-tests-pass.sh']);
    writeFileSync(
      path.join(project, 'package.json'),
      JSON.stringify({ name: 'sums', private: true, type: 'module', scripts: { test: 'node --test' } }),
    );
    mkdirSync(path.join(project, 'src'));
    mkdirSync(path.join(project, 'test'));
    writeFileSync(path.join(project, 'src', 'sum.js'), 'export const sum = (a, b) => a - b;\n');
    writeFileSync(
      path.join(project, 'test', 'sum.test.js'),
      "import assert from 'node:assert/strict';\nimport test from 'node:test';\nimport { sum } from '../src/sum.js';\n\ntest('sum adds', () => assert.equal(sum(2, 3), 5));\n",
    );

    const run = await runAgent(project, [
      { text: 'The sum function is written. I am done.' },
      { tools: [{ name: 'Read', input: { file_path: 'src/sum.js' } }] },
      { tools: [{ name: 'Edit', input: { file_path: 'src/sum.js', old_string: 'a - b', new_string: 'a + b' } }] },
      report('fixed sum'),
    ]);

    expect(run.result).toMatchObject({ reason: 'report', report: { summary: 'fixed sum' } });
    const feedback = run.userTexts.find((text) => text.startsWith('Stop hook feedback'));
    expect(feedback).toMatch(/^Stop hook feedback \(you may not stop yet\):\nThe tests fail; fix them before you stop\.\n/);
    expect(feedback).toContain('sum adds');
    expect(run.hookEvents.map((event) => event.type === 'hook' && [event.event, event.outcome])).toEqual([
      ['Stop', 'block'],
      ['Stop', 'ok'],
    ]);
  });

  it("with the permission rules of the same settings file, a PreToolUse hook's allow never overrides a deny rule", async () => {
    const allowEverything = respondAllow();
    const project = claudeCodeProject({ PreToolUse: [{ matcher: 'Write', hooks: [{ type: 'command', command: allowEverything }] }] }, [], {
      permissions: { deny: ['Write(secrets/**)'] },
    });

    const run = await runAgent(
      project,
      [
        { tools: [{ name: 'Write', input: { file_path: 'secrets/token', content: 'x' } }] },
        { tools: [{ name: 'Write', input: { file_path: 'notes.md', content: 'x' } }] },
        report('done'),
      ],
      { decider: 'settings', mode: 'read-only' },
    );

    expect(existsSync(path.join(project, 'secrets', 'token'))).toBe(false);
    expect(run.toolResults[0]).toMatchObject({ is_error: true, content: expect.stringContaining('Permission to use Write was denied') });
    // In read-only mode the hook's allow stands in for the prompt the mode would need.
    expect(readFileSync(path.join(project, 'notes.md'), 'utf8')).toBe('x');
    const decisions = run.events.flatMap((event) => (event.type === 'permission' ? [[event.decision, event.by]] : []));
    expect(decisions[0]).toEqual(['deny', expect.stringContaining('Write(secrets/**)')]);
    expect(decisions[1]![0]).toBe('allow');
  });
});

/** A hook printing Claude Code's allow, as a one-line jq command. */
function respondAllow(): string {
  return `jq -n '{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "allow", permissionDecisionReason: "trusted project"}}'`;
}
