import { describe, expect, it } from 'vitest';
import { matchingHooks } from '../../shared/policy/hooks/hookRunner.js';
import { compileMatcher, MatcherError } from '../../shared/policy/hooks/matcher.js';
import { hooksOf } from './hookTestKit.js';

describe('matcher forms', () => {
  it.each([undefined, '', '*'])('%j matches every tool', (pattern) => {
    const matches = compileMatcher(pattern);
    expect(['Bash', 'Write', 'mcp__x__y'].every((name) => matches(name))).toBe(true);
  });

  it('a plain name matches that tool exactly, not as a substring', () => {
    const matches = compileMatcher('Write');
    expect(matches('Write')).toBe(true);
    expect(matches('NotebookWrite')).toBe(false);
    expect(matches('write')).toBe(false);
  });

  it('names separated by | or , match exactly any of them', () => {
    for (const pattern of ['Edit|Write', 'Edit,Write', 'Edit, Write']) {
      const matches = compileMatcher(pattern);
      expect([matches('Edit'), matches('Write'), matches('MultiEdit'), matches('Edit|Write')]).toEqual([true, true, false, false]);
    }
  });

  it('a name with a hyphen or underscore is still an exact name', () => {
    expect(compileMatcher('my-tool')('my-tool')).toBe(true);
    expect(compileMatcher('my-tool')('xmy-toolx')).toBe(false);
    expect(compileMatcher('mcp__memory')('mcp__memory__create')).toBe(false);
  });

  it('anything else is an unanchored regular expression on the tool name', () => {
    expect(compileMatcher('mcp__memory__.*')('mcp__memory__create')).toBe(true);
    expect(compileMatcher('Notebook.*')('NotebookEdit')).toBe(true);
    expect(compileMatcher('^Bash$')('Bash')).toBe(true);
    expect(compileMatcher('^Bash$')('BashOutput')).toBe(false);
    expect(compileMatcher('Ba.h')('xBashx')).toBe(true);
  });

  it('an invalid regular expression is an error that says what to write instead', () => {
    expect(() => compileMatcher('Edit(')).toThrow(MatcherError);
    expect(() => compileMatcher('Edit(')).toThrow(
      /matcher "Edit\(" is not a valid regular expression .*use a tool name, names separated by \| or ","/,
    );
  });
});

describe('which field a matcher is tested against', () => {
  const label = (hooks: ReturnType<typeof matchingHooks>) => hooks.map((hook) => (hook.type === 'command' ? hook.command : hook.url));

  it('tool events match the tool name', () => {
    const hooks = hooksOf({
      PostToolUse: [
        { matcher: 'Edit|Write', hooks: [{ type: 'command', command: 'format' }] },
        { matcher: 'Bash', hooks: [{ type: 'command', command: 'audit' }] },
      ],
    });
    expect(label(matchingHooks(hooks, 'PostToolUse', { tool_name: 'Write' }))).toEqual(['format']);
    expect(label(matchingHooks(hooks, 'PostToolUse', { tool_name: 'Bash' }))).toEqual(['audit']);
    expect(label(matchingHooks(hooks, 'PostToolUse', { tool_name: 'Read' }))).toEqual([]);
  });

  it('SessionStart matches source, PreCompact trigger, SubagentStop agent_type, Notification notification_type', () => {
    const hooks = hooksOf({
      SessionStart: [{ matcher: 'startup|resume', hooks: [{ type: 'command', command: 'start' }] }],
      PreCompact: [{ matcher: 'auto', hooks: [{ type: 'command', command: 'compact' }] }],
      SubagentStop: [{ matcher: 'worker', hooks: [{ type: 'command', command: 'stop' }] }],
      Notification: [{ matcher: 'idle_prompt', hooks: [{ type: 'command', command: 'notify' }] }],
    });
    expect(label(matchingHooks(hooks, 'SessionStart', { source: 'resume' }))).toEqual(['start']);
    expect(label(matchingHooks(hooks, 'SessionStart', { source: 'compact' }))).toEqual([]);
    expect(label(matchingHooks(hooks, 'PreCompact', { trigger: 'auto' }))).toEqual(['compact']);
    expect(label(matchingHooks(hooks, 'PreCompact', { trigger: 'manual' }))).toEqual([]);
    expect(label(matchingHooks(hooks, 'SubagentStop', { agent_type: 'worker' }))).toEqual(['stop']);
    expect(label(matchingHooks(hooks, 'SubagentStop', { agent_type: 'explore' }))).toEqual([]);
    expect(label(matchingHooks(hooks, 'Notification', { notification_type: 'idle_prompt' }))).toEqual(['notify']);
  });

  it('events without a match field ignore the matcher and run every group', () => {
    const hooks = hooksOf({ Stop: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'check' }] }] });
    expect(label(matchingHooks(hooks, 'Stop', { stop_hook_active: false }))).toEqual(['check']);
  });

  it('an event fired without its match value runs only the match-all groups', () => {
    const hooks = hooksOf({
      SessionEnd: [{ matcher: 'logout', hooks: [{ type: 'command', command: 'named' }] }, { hooks: [{ type: 'command', command: 'all' }] }],
    });
    expect(label(matchingHooks(hooks, 'SessionEnd', {}))).toEqual(['all']);
  });
});
