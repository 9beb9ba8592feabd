import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AgentEventInput } from '../../shared/core/events/agentEvent.js';
import { Workspace } from '../../shared/core/files/workspace.js';
import type { PermissionMode } from '../../shared/core/tool/permissionMode.js';
import { modeOnlySlots, runToolCall, type ToolPipelineSlots } from '../../shared/core/tool/pipeline.js';
import { ToolRegistry } from '../../shared/core/tool/registry.js';
import { defineTool } from '../../shared/core/tool/tool.js';
import { createPermissionDecider, type PermissionHookAnswer } from '../../shared/policy/permissions/permissionSlot.js';
import { PermissionPolicy } from '../../shared/policy/permissions/policy.js';
import type { AnswersInAdvance, PermissionQuestion, Prompter } from '../../shared/policy/permissions/prompter.js';
import { isBroken, type PermissionRule, parseRule, RULE_BEHAVIORS, type RuleBehavior } from '../../shared/policy/permissions/rule.js';
import { bashLevel, isReadOnlyBash } from '../../shared/policy/permissions/shell/bashLevel.js';
import { bashTool } from '../../shared/tools/bash.js';
import { tempDir } from '../support/tempDir.js';
import { makeToolContext } from '../support/toolContext.js';
import { toolNamed } from '../support/toolNamed.js';

type Rules = Partial<Record<RuleBehavior, string[]>>;

function policyOf(rules: Rules): PermissionPolicy {
  return new PermissionPolicy(
    RULE_BEHAVIORS.flatMap((behavior) => (rules[behavior] ?? []).map((text) => parseRule(text, behavior, '.claude/settings.json'))),
  );
}

function answers(...texts: string[]): PermissionRule[] {
  return texts.map((text) => parseRule(text, 'allow', '--yes-to')).filter((rule): rule is PermissionRule => !isBroken(rule));
}

describe('answers given in advance, in the policy', () => {
  const workspace = new Workspace(tempDir('orca-answers-'));
  const bash = (policy: PermissionPolicy, command: string, mode: PermissionMode, given: PermissionRule[] = []) =>
    policy.decide({ tool: toolNamed('Bash'), input: { command }, level: bashLevel(command) }, { mode, workspace, answers: given });

  it('answer an ask rule for the parts they cover, and name themselves; the rest is judged as ever', () => {
    const policy = policyOf({ ask: ['Bash(npm publish:*)'] });
    expect(bash(policy, 'npm publish --tag next', 'full-access').behavior).toBe('ask');
    const answered = bash(policy, 'npm publish --tag next', 'full-access', answers('Bash(npm publish:*)'));
    expect(answered).toMatchObject({ behavior: 'allow', by: 'answer:Bash(npm publish:*) (--yes-to), mode:full-access' });
    expect(answered.reason).toBe('answered in advance by answer:Bash(npm publish:*) (--yes-to); mode full-access covers full-access');
    // A compound command: the answer covers the asked part, the mode the rest.
    expect(bash(policy, 'ls && npm publish', 'full-access', answers('Bash(npm publish:*)')).behavior).toBe('allow');
    // An answer about something else answers nothing.
    expect(bash(policy, 'npm publish', 'full-access', answers('Bash(git push:*)')).behavior).toBe('ask');
  });

  it('never answer a deny rule; answer a mode shortfall, and a destructive command only when they name it', () => {
    const policy = policyOf({ deny: ['Bash(npm publish:*)'] });
    expect(bash(policy, 'npm publish', 'full-access', answers('Bash(npm publish:*)')).behavior).toBe('deny');
    const plain = policyOf({});
    expect(bash(plain, 'npm install', 'read-only').behavior).toBe('deny');
    expect(bash(plain, 'npm install', 'read-only', answers('Bash(npm install:*)'))).toMatchObject({
      behavior: 'allow',
      by: 'answer:Bash(npm install:*) (--yes-to)',
    });
    expect(bash(plain, 'rm -rf build', 'full-access', answers('Bash')).behavior).toBe('ask');
    expect(bash(plain, 'rm -rf build', 'full-access', answers('Bash(rm -rf build)')).behavior).toBe('allow');
  });

  it('suggest a rule per part that needs an answer: a command by its first word and subcommand, a path from the project root', () => {
    const policy = policyOf({ ask: ['Bash(npm publish:*)', 'Edit(/docs/**)'] });
    const suggest = (tool: string, input: Record<string, unknown>, level: PermissionMode, mode: PermissionMode) =>
      policy.suggest({ tool: toolNamed(tool), input, level }, { mode, workspace });
    expect(suggest('Bash', { command: 'npm publish --tag next' }, 'full-access', 'full-access')).toEqual(['Bash(npm publish:*)']);
    expect(suggest('Bash', { command: 'ls && npm publish' }, 'full-access', 'full-access')).toEqual(['Bash(npm publish:*)']);
    expect(suggest('Bash', { command: 'git push origin main' }, 'full-access', 'read-only')).toEqual(['Bash(git push:*)']);
    expect(suggest('Bash', { command: 'rm -rf build' }, 'full-access', 'full-access')).toEqual(['Bash(rm:*)']);
    expect(suggest('Write', { file_path: 'docs/a.md', content: '' }, 'workspace-write', 'full-access')).toEqual(['Edit(/docs/a.md)']);
    expect(suggest('Bash', { command: 'ls' }, 'read-only', 'read-only')).toEqual([]);
  });
});

// A Bash stand-in with the real tool's name, level and facts, recording what ran.
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

class ScriptedPrompter implements Prompter {
  readonly name = 'scripted';
  readonly asked: PermissionQuestion[] = [];
  readonly announced: AgentEventInput[] = [];
  constructor(
    private readonly answer: boolean,
    private readonly inAdvance: AnswersInAdvance[] = [],
  ) {}
  async answersInAdvance(): Promise<AnswersInAdvance[]> {
    return this.inAdvance;
  }
  async ask(question: PermissionQuestion, _signal?: AbortSignal, announce?: (event: AgentEventInput) => void) {
    this.asked.push(question);
    announce?.({ type: 'notice', level: 'info', message: `asked ${question.id}` });
    return { allowed: this.answer, reason: this.answer ? 'yes from the test' : 'no from the test', by: 'tester', via: 'command' as const };
  }
}

function pipeline(options: { rules?: Rules; prompter: Prompter; hook?: PermissionHookAnswer; mode?: PermissionMode }) {
  const hooked: string[] = [];
  const announced: AgentEventInput[] = [];
  const permission = createPermissionDecider({
    policy: policyOf(options.rules ?? { ask: ['Bash(npm publish:*)'] }),
    prompter: options.prompter,
    requestHook: options.hook
      ? async (request) => {
          hooked.push(`${request.tool.name} ${JSON.stringify(request.input)} ${request.suggestion.join(',')}`);
          return options.hook;
        }
      : undefined,
    announce: (event) => announced.push(event),
  });
  const slots: ToolPipelineSlots = { ...modeOnlySlots, permission };
  const ctx = makeToolContext({ mode: options.mode ?? 'full-access' });
  const registry = new ToolRegistry([shell]);
  let next = 0;
  const call = (command: string) => runToolCall({ id: `c${(next += 1)}`, name: 'Bash', input: { command } }, registry, slots, ctx);
  const decisions = () => ctx.events.filter((event) => event.type === 'permission');
  return { call, ctx, hooked, announced, decisions };
}

describe('the decider: answers in advance, then PermissionRequest hooks, then a person', () => {
  it('asks a person with the request’s id, summary, reason, input and suggestion, announcing the answer at once', async () => {
    const prompter = new ScriptedPrompter(true);
    const { call, announced } = pipeline({ prompter });
    const result = await call('npm publish --tag next');
    expect(result.block.is_error).toBeUndefined();
    expect(ran).toContain('npm publish --tag next');
    const [question] = prompter.asked;
    expect(question).toMatchObject({
      tool: 'Bash',
      summary: 'npm publish --tag next',
      by: 'ask:Bash(npm publish:*) in .claude/settings.json',
      input: { command: 'npm publish --tag next' },
      suggestion: ['Bash(npm publish:*)'],
    });
    expect(question!.id).toMatch(/^[0-9a-f]{8}$/);
    expect(announced.at(-1)).toEqual({
      type: 'permission',
      tool: 'Bash',
      decision: 'allow',
      by: 'tester',
      reason: 'yes from the test',
      via: 'command',
    });
  });

  it('answers in advance leave the person unasked', async () => {
    const prompter = new ScriptedPrompter(false, [{ rules: ['Bash(npm publish:*)'], source: 'allowed for the run by alice (terminal)' }]);
    const { call, decisions } = pipeline({ prompter });
    await call('npm publish');
    expect(prompter.asked).toEqual([]);
    expect(decisions().at(-1)).toMatchObject({
      decision: 'allow',
      by: 'answer:Bash(npm publish:*) (allowed for the run by alice (terminal)), mode:full-access',
    });
  });

  it('a PermissionRequest hook answers before anyone: a deny with interrupt stops the session; its kept rules answer later calls', async () => {
    const prompter = new ScriptedPrompter(true);
    const denying = pipeline({ prompter, hook: { behavior: 'deny', reason: 'not on CI', by: 'ci.sh', remember: [], interrupt: true } });
    const denied = await denying.call('npm publish');
    expect(denied.block.content).toBe('Permission to use Bash was denied: not on CI');
    expect(denied.stop).toBe('not on CI');
    expect(prompter.asked).toEqual([]);
    expect(denying.hooked).toEqual(['Bash {"command":"npm publish"} Bash(npm publish:*)']);

    const keeping = pipeline({
      prompter,
      hook: { behavior: 'allow', reason: 'release day', by: 'release.sh', remember: ['Bash(npm publish:*)'], interrupt: false },
    });
    await keeping.call('npm publish --tag a');
    await keeping.call('npm publish --tag b');
    // The second call was answered by the rule the hook kept: the hook ran once.
    expect(keeping.hooked).toHaveLength(1);
    expect(keeping.decisions().at(-1)).toMatchObject({
      decision: 'allow',
      by: 'answer:Bash(npm publish:*) (PermissionRequest hook release.sh), mode:full-access',
    });
  });

  it('a hook’s rewritten input is judged again: a deny rule still denies it, an ask rule sends it to a person', async () => {
    const prompter = new ScriptedPrompter(true);
    const rewrite = (command: string): PermissionHookAnswer => ({
      behavior: 'allow',
      reason: 'rewritten',
      by: 'rewrite.sh',
      updatedInput: { command },
      remember: [],
      interrupt: false,
    });
    const denied = pipeline({ prompter, rules: { ask: ['Bash(npm publish:*)'], deny: ['Bash(git push:*)'] }, hook: rewrite('git push') });
    expect((await denied.call('npm publish')).block.content).toMatch(/^Permission to use Bash was denied: the rule Bash\(git push:\*\)/);
    expect(ran).not.toContain('git push');

    const plain = pipeline({ prompter, hook: rewrite('echo rewritten') });
    const before = ran.length;
    await plain.call('npm publish');
    expect(ran.slice(before)).toEqual(['echo rewritten']);

    const asked = pipeline({ prompter, rules: { ask: ['Bash(npm publish:*)', 'Bash(npm view:*)'] }, hook: rewrite('npm view orca') });
    await asked.call('npm publish');
    expect(prompter.asked.at(-1)).toMatchObject({ summary: 'npm view orca', input: { command: 'npm view orca' } });
    expect(ran).toContain('npm view orca');
  });
});
