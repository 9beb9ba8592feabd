import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AgentEventInput } from '../../shared/core/events/agentEvent.js';
import type { PermissionMode } from '../../shared/core/tool/permissionMode.js';
import { modeOnlySlots, type PreToolUseOutcome, runToolCall, type ToolPipelineSlots } from '../../shared/core/tool/pipeline.js';
import { ToolRegistry } from '../../shared/core/tool/registry.js';
import { defineTool } from '../../shared/core/tool/tool.js';
import { createPermissionDecider } from '../../shared/policy/permissions/permissionSlot.js';
import { PermissionPolicy } from '../../shared/policy/permissions/policy.js';
import { DenyPrompter, type Prompter, RecordingPrompter } from '../../shared/policy/permissions/prompter.js';
import { parseRule, RULE_BEHAVIORS, type RuleBehavior } from '../../shared/policy/permissions/rule.js';
import { bashLevel, isReadOnlyBash } from '../../shared/policy/permissions/shell/bashLevel.js';
import { bashTool } from '../../shared/tools/bash.js';
import { writeTool } from '../../shared/tools/write.js';
import { makeToolContext } from '../support/toolContext.js';

// Stand-ins with the real tools' names, levels and facts (what their rules name, their family)
// that record what ran instead of doing it, so these tests are about the decision and stay
// independent of the tools' own rules.
const ran: string[] = [];
const shell = defineTool({
  name: 'Bash',
  description: 'runs a command',
  input: z.object({ command: z.string() }),
  level: (input) => bashLevel(input.command),
  readOnly: (input) => isReadOnlyBash(input.command),
  family: bashTool.family,
  rule: bashTool.rule,
  async call(input) {
    ran.push(input.command);
    return { content: `ran ${input.command}` };
  },
});
const write = defineTool({
  name: 'Write',
  description: 'writes a file',
  input: z.object({ file_path: z.string(), content: z.string() }),
  level: 'workspace-write',
  readOnly: false,
  family: writeTool.family,
  rule: writeTool.rule,
  async call(input, ctx) {
    writeFileSync(ctx.workspace.resolve(input.file_path, 'write'), input.content);
    return { content: `wrote ${input.file_path}` };
  },
});

function harness(options: {
  rules?: Partial<Record<RuleBehavior, string[]>>;
  prompter?: Prompter;
  mode?: PermissionMode;
  pre?: PreToolUseOutcome;
}) {
  const rules = RULE_BEHAVIORS.flatMap((behavior) =>
    (options.rules?.[behavior] ?? []).map((text) => parseRule(text, behavior, '.claude/settings.json')),
  );
  const permission = createPermissionDecider({ policy: new PermissionPolicy(rules), prompter: options.prompter ?? new DenyPrompter() });
  const slots: ToolPipelineSlots = { ...modeOnlySlots, preToolUse: async () => options.pre ?? {}, permission };
  const ctx = makeToolContext({ mode: options.mode ?? 'workspace-write' });
  const registry = new ToolRegistry([shell, write]);
  let next = 0;
  const call = (name: string, input: unknown) => runToolCall({ id: `call-${(next += 1)}`, name, input }, registry, slots, ctx);
  const permissions = () =>
    ctx.events.filter((event): event is Extract<AgentEventInput, { type: 'permission' }> => event.type === 'permission');
  return { ctx, call, permissions };
}

describe('the permission slot in the tool pipeline', () => {
  it('refuses a call a deny rule matches, names the rule in an event and tells the model why', async () => {
    const { call, permissions } = harness({ rules: { deny: ['Bash(git push:*)'] }, mode: 'full-access' });
    const result = await call('Bash', { command: 'git push origin main' });
    expect(result.block.is_error).toBe(true);
    expect(result.block.content).toBe(
      'Permission to use Bash was denied: the rule Bash(git push:*) in .claude/settings.json denies `git push origin main`',
    );
    expect(permissions()).toEqual([
      {
        type: 'permission',
        tool: 'Bash',
        decision: 'deny',
        by: 'deny:Bash(git push:*) in .claude/settings.json',
        reason: expect.any(String),
      },
    ]);
    expect(ran).not.toContain('git push origin main');
  });

  it('runs a call the mode covers, with an event naming the mode', async () => {
    const { call, permissions, ctx } = harness({ mode: 'workspace-write' });
    const result = await call('Write', { file_path: 'notes.txt', content: 'hi' });
    expect(result.block.is_error).toBeUndefined();
    expect(permissions()).toMatchObject([{ decision: 'allow', by: 'mode:workspace-write' }]);
    expect(existsSync(path.join(ctx.workspace.root, 'notes.txt'))).toBe(true);
  });

  it('sends a call above the mode to the prompter, and records the question and the answer', async () => {
    const prompter = new RecordingPrompter([true]);
    const { call, permissions, ctx } = harness({ prompter, mode: 'workspace-write' });
    const result = await call('Bash', { command: 'make build' });
    expect(result.block.content).toBe('ran make build');
    expect(prompter.questions).toEqual([
      {
        id: expect.stringMatching(/^[0-9a-f]{8}$/),
        tool: 'Bash',
        summary: 'make build',
        reason: 'Bash needs full-access and this session runs in workspace-write (`make build` needs full-access)',
        by: 'mode:workspace-write',
        input: { command: 'make build' },
        cwd: ctx.workspace.root,
        suggestion: ['Bash(make build:*)'],
      },
    ]);
    expect(permissions().map((event) => [event.decision, event.by])).toEqual([
      ['ask', 'mode:workspace-write'],
      ['allow', 'prompter:recording'],
    ]);
  });

  it('headless, refuses what would need an answer, with the reason the model sees', async () => {
    const { call, permissions } = harness({ mode: 'read-only' });
    const result = await call('Bash', { command: 'rm -rf build' });
    expect(result.block.is_error).toBe(true);
    expect(result.block.content).toMatch(
      /^Permission to use Bash was denied: `rm -rf build`: rm -rf deletes folder trees without asking; it needs an allow rule that names it, e.g\. Bash\(rm -rf build\)\. This session runs without anyone to ask/,
    );
    expect(permissions().map((event) => event.by)).toEqual(['destructive', 'prompter:deny']);
  });

  it('lets a read-only session run read-only shell commands', async () => {
    const { call } = harness({ mode: 'read-only' });
    expect((await call('Bash', { command: 'git status && ls | head' })).block.is_error).toBeUndefined();
  });

  it('a hook allow skips the prompt but not a deny rule; a hook ask forces the prompter', async () => {
    const allowHook = harness({ mode: 'read-only', pre: { decision: 'allow', reason: 'ci hook' } });
    expect((await allowHook.call('Bash', { command: 'make' })).block.content).toBe('ran make');
    expect(allowHook.permissions()).toMatchObject([{ decision: 'allow', by: 'hook:PreToolUse' }]);

    const denied = harness({ mode: 'full-access', rules: { deny: ['Bash(make:*)'] }, pre: { decision: 'allow' } });
    expect((await denied.call('Bash', { command: 'make' })).block.is_error).toBe(true);

    const prompter = new RecordingPrompter([false]);
    const asking = harness({ mode: 'full-access', prompter, pre: { decision: 'ask', reason: 'a hook wants a person to look' } });
    expect((await asking.call('Bash', { command: 'ls' })).block.is_error).toBe(true);
    expect(prompter.questions[0]!.reason).toBe('a hook wants a person to look');
  });

  it('says once, as a notice, which rules could not be read', async () => {
    const { call, ctx } = harness({ rules: { allow: ['Bash(npm test'] }, mode: 'full-access' });
    await call('Bash', { command: 'ls' });
    await call('Bash', { command: 'pwd' });
    const notices = ctx.events.filter((event) => event.type === 'notice');
    expect(notices).toEqual([
      {
        type: 'notice',
        level: 'warn',
        message:
          'allow:Bash(npm test in .claude/settings.json cannot be read (the specifier has no closing ")"); it allows nothing until it is fixed',
      },
    ]);
  });
});
