import { describe, expect, it } from 'vitest';
import type { HookEventName } from '../../shared/policy/hooks/hookEvents.js';
import type { HookPayloads } from '../../shared/policy/hooks/hookInput.js';
import { runHooks } from '../../shared/policy/hooks/hookRunner.js';
import { tempDir } from '../support/tempDir.js';
import { hookEvents, hooksOf, respondHook, testHookContext } from './hookTestKit.js';

const preToolUse = { tool_name: 'Write', tool_input: { file_path: '/w/a.ts', content: 'x' }, tool_use_id: 'toolu_1' };

/** Runs one node hook that prints `stdout` (a JSON value or text) and exits `exit`. */
async function answer<E extends HookEventName>(event: E, payload: HookPayloads[E], stdout: unknown, exit = 0) {
  const dir = tempDir();
  const context = testHookContext();
  const hooks = hooksOf({ [event]: [{ hooks: [{ type: 'command', command: respondHook(dir, { stdout, exit }) }] }] });
  const outcome = await runHooks(hooks, event, payload, context);
  return { outcome, events: context.events, hook: hookEvents(context.events)[0]! };
}

describe('JSON output of a hook (exit 0)', () => {
  it('continue: false stops the session with its stopReason', async () => {
    const { outcome, hook } = await answer(
      'PostToolUse',
      { ...preToolUse, tool_response: 'ok' },
      { continue: false, stopReason: 'budget spent' },
    );
    expect(outcome.stop).toBe('budget spent');
    expect(hook.outcome).toBe('block');
  });

  it('continue: false without a stopReason still stops, with a reason naming the hook', async () => {
    const { outcome } = await answer('UserPromptSubmit', { prompt: 'hi' }, { continue: false });
    expect(outcome.stop).toMatch(/^the hook node .*respond\.mjs.* stopped the session \(continue: false\)$/);
  });

  it('suppressOutput keeps the stdout out of the log', async () => {
    const shown = await answer('Notification', { message: 'm', notification_type: 'idle_prompt' }, { systemMessage: 'hello' });
    const hidden = await answer(
      'Notification',
      { message: 'm', notification_type: 'idle_prompt' },
      { systemMessage: 'hello', suppressOutput: true },
    );
    expect(shown.hook.detail).toContain('stdout: {"systemMessage":"hello"}');
    expect(hidden.hook.detail).toBeUndefined();
  });

  it('systemMessage is a notice for the user, not context for the model', async () => {
    const { outcome, events } = await answer('SessionStart', { source: 'startup' }, { systemMessage: 'remember to rebase' });
    expect(outcome.systemMessages).toEqual(['remember to rebase']);
    expect(outcome.additionalContext).toEqual([]);
    expect(events).toContainEqual({
      type: 'notice',
      level: 'info',
      message: expect.stringMatching(/^SessionStart hook .*: remember to rebase$/),
    });
  });

  it('decision "block" with a reason blocks a Stop and a UserPromptSubmit', async () => {
    const stop = await answer('Stop', { stop_hook_active: false }, { decision: 'block', reason: 'tests fail' });
    const prompt = await answer('UserPromptSubmit', { prompt: 'deploy' }, { decision: 'block', reason: 'no deploys on Friday' });
    expect(stop.outcome).toMatchObject({ blocked: true, reason: 'tests fail' });
    expect(prompt.outcome).toMatchObject({ blocked: true, reason: 'no deploys on Friday' });
  });

  it('decision "block" on PostToolUse is feedback for the model (the tool already ran)', async () => {
    const { outcome } = await answer(
      'PostToolUse',
      { ...preToolUse, tool_response: 'ok' },
      { decision: 'block', reason: 'the file has lint errors' },
    );
    expect(outcome).toMatchObject({ blocked: false, feedback: 'the file has lint errors' });
  });

  it.each([
    ['allow', { decision: 'allow', decisionReason: 'safe path', blocked: false }],
    ['ask', { decision: 'ask', decisionReason: 'safe path', blocked: false }],
    ['deny', { decision: 'deny', decisionReason: 'safe path', blocked: true, reason: 'safe path' }],
    ['defer', { decision: 'ask', decisionReason: 'safe path', blocked: false }],
  ])('hookSpecificOutput.permissionDecision %s with its reason', async (decision, expected) => {
    const { outcome } = await answer('PreToolUse', preToolUse, {
      hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: decision, permissionDecisionReason: 'safe path' },
    });
    expect(outcome).toMatchObject(expected);
  });

  it('the older top-level decision approve/block still works on PreToolUse', async () => {
    const approve = await answer('PreToolUse', preToolUse, { decision: 'approve', reason: 'fine' });
    const block = await answer('PreToolUse', preToolUse, { decision: 'block', reason: 'not fine' });
    expect(approve.outcome).toMatchObject({ decision: 'allow', decisionReason: 'fine' });
    expect(block.outcome).toMatchObject({ decision: 'deny', blocked: true, reason: 'not fine' });
  });

  it('updatedInput rewrites the tool input', async () => {
    const { outcome } = await answer('PreToolUse', preToolUse, {
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'allow',
        updatedInput: { file_path: '/w/b.ts', content: 'y' },
      },
    });
    expect(outcome).toMatchObject({ decision: 'allow', updatedInput: { file_path: '/w/b.ts', content: 'y' } });
  });

  it('additionalContext goes to the model on any event that gives it', async () => {
    const pre = await answer('PreToolUse', preToolUse, {
      hookSpecificOutput: { hookEventName: 'PreToolUse', additionalContext: 'a.ts is generated' },
    });
    const post = await answer(
      'PostToolUse',
      { ...preToolUse, tool_response: 'ok' },
      { hookSpecificOutput: { additionalContext: 'formatted' } },
    );
    expect(pre.outcome.additionalContext).toEqual(['a.ts is generated']);
    expect(post.outcome.additionalContext).toEqual(['formatted']);
  });

  it('PermissionRequest answers with hookSpecificOutput.decision', async () => {
    const request = { tool_name: 'Bash', tool_input: { command: 'npm test' } };
    const allow = await answer('PermissionRequest', request, {
      hookSpecificOutput: {
        hookEventName: 'PermissionRequest',
        decision: { behavior: 'allow', updatedInput: { command: 'npm test --silent' } },
      },
    });
    const deny = await answer('PermissionRequest', request, {
      hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'deny', message: 'not on CI', interrupt: true } },
    });
    expect(allow.outcome).toMatchObject({ decision: 'allow', blocked: false, updatedInput: { command: 'npm test --silent' } });
    expect(deny.outcome).toMatchObject({ decision: 'deny', blocked: true, reason: 'not on CI', stop: 'not on CI' });
  });

  it('PermissionDenied may ask for a retry', async () => {
    const { outcome } = await answer(
      'PermissionDenied',
      { tool_name: 'Bash', tool_input: { command: 'x' }, tool_use_id: 't', reason: 'mode' },
      { hookSpecificOutput: { hookEventName: 'PermissionDenied', retry: true } },
    );
    expect(outcome.retry).toBe(true);
  });

  it('fields orca does not use are named in the log and do not spoil the rest of the answer', async () => {
    const { outcome, hook } = await answer('PreToolUse', preToolUse, {
      sessionTitle: 'x',
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: 'generated file',
        updatedMCPToolOutput: 1,
      },
    });
    expect(outcome).toMatchObject({ blocked: true, reason: 'generated file' });
    expect(hook.detail).toContain('ignored: sessionTitle, hookSpecificOutput.updatedMCPToolOutput');
  });

  it('fields for another event are named as ignored', async () => {
    const { outcome, hook } = await answer('Stop', { stop_hook_active: false }, { hookSpecificOutput: { permissionDecision: 'deny' } });
    expect(outcome.blocked).toBe(false);
    expect(hook.detail).toContain('hookSpecificOutput.permissionDecision (not used by Stop)');
  });
});

describe('JSON output orca cannot read', () => {
  it('broken JSON is a non-blocking error that says what is wrong', async () => {
    const { outcome, hook } = await answer('PreToolUse', preToolUse, '{"decision": "block"');
    expect(outcome.blocked).toBe(false);
    expect(hook.outcome).toBe('error');
    expect(hook.detail).toMatch(/^its stdout starts with "\{" but is not valid JSON/);
  });

  it('a field of the wrong type is a non-blocking error naming the field', async () => {
    const { outcome, hook } = await answer('Stop', { stop_hook_active: false }, { continue: 'no' });
    expect(outcome.stop).toBeUndefined();
    expect(hook).toMatchObject({ outcome: 'error' });
    expect(hook.detail).toContain('its JSON output is invalid: continue: Invalid input: expected boolean, received string');
  });

  it('hookSpecificOutput for another event is refused', async () => {
    const { outcome, hook } = await answer('PreToolUse', preToolUse, {
      hookSpecificOutput: { hookEventName: 'PostToolUse', permissionDecision: 'deny' },
    });
    expect(outcome.blocked).toBe(false);
    expect(hook.detail).toContain('hookSpecificOutput.hookEventName is "PostToolUse" but the hook ran for PreToolUse');
  });
});
