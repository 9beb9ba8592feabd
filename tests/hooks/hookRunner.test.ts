import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runHooks } from '../../shared/policy/hooks/hookRunner.js';
import { tempDir } from '../support/tempDir.js';
import { exitHook, hooksOf, respondHook, testHookContext } from './hookTestKit.js';

const preToolUse = { tool_name: 'Bash', tool_input: { command: 'make' }, tool_use_id: 'toolu_1' };

function decide(permissionDecision: string, extra: Record<string, unknown> = {}) {
  return {
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision,
      permissionDecisionReason: `said ${permissionDecision}`,
      ...extra,
    },
  };
}

/** Runs PreToolUse with one node hook per answer, all in one matcher group, in this order. */
async function preToolUseWith(...answers: unknown[]) {
  const dir = tempDir();
  const hooks = hooksOf({ PreToolUse: [{ hooks: answers.map((stdout) => ({ type: 'command', command: respondHook(dir, { stdout }) })) }] });
  return runHooks(hooks, 'PreToolUse', preToolUse, testHookContext());
}

describe('merging the hooks of one event', () => {
  it('deny beats ask beats allow', async () => {
    expect((await preToolUseWith(decide('allow'), decide('deny'), decide('ask'))).decision).toBe('deny');
    expect(await preToolUseWith(decide('allow'), decide('ask'))).toMatchObject({
      decision: 'ask',
      decisionReason: 'said ask',
      blocked: false,
    });
    expect(await preToolUseWith(decide('allow'), {})).toMatchObject({ decision: 'allow', decisionReason: 'said allow' });
    expect((await preToolUseWith({}, {})).decision).toBeUndefined();
  });

  it("an exit 2 from one hook beats another hook's allow", async () => {
    const dir = tempDir();
    const hooks = hooksOf({
      PreToolUse: [
        {
          hooks: [
            { type: 'command', command: respondHook(dir, { stdout: decide('allow') }) },
            { type: 'command', command: exitHook(2, 'not make') },
          ],
        },
      ],
    });
    expect(await runHooks(hooks, 'PreToolUse', preToolUse, testHookContext())).toMatchObject({
      decision: 'deny',
      blocked: true,
      reason: 'not make',
    });
  });

  it('any continue: false stops, whatever the others say', async () => {
    const outcome = await preToolUseWith(decide('allow'), { continue: false, stopReason: 'quota reached' });
    expect(outcome.stop).toBe('quota reached');
  });

  it('additionalContext of every hook, in settings order even when the hooks finish in another order', async () => {
    const dir = tempDir();
    const secondDone = path.join(dir, 'second-done');
    const hooks = hooksOf({
      PostToolUse: [
        // The first hook answers only after the second has: it finishes last.
        {
          hooks: [
            {
              type: 'command',
              command: respondHook(dir, { wait_for: secondDone, stdout: { hookSpecificOutput: { additionalContext: 'first' } } }),
            },
          ],
        },
        {
          matcher: 'Bash',
          hooks: [
            {
              type: 'command',
              command: respondHook(dir, { create: secondDone, stdout: { hookSpecificOutput: { additionalContext: 'second' } } }),
            },
          ],
        },
      ],
    });
    const outcome = await runHooks(hooks, 'PostToolUse', { ...preToolUse, tool_response: '' }, testHookContext());
    expect(outcome.additionalContext).toEqual(['first', 'second']);
  });

  it('the same rewrite from two hooks is taken', async () => {
    const rewrite = { updatedInput: { command: 'make -j4' } };
    const outcome = await preToolUseWith(decide('allow', rewrite), decide('allow', rewrite));
    expect(outcome).toMatchObject({ decision: 'allow', blocked: false, updatedInput: { command: 'make -j4' } });
  });

  it('two different rewrites deny the call rather than pick one', async () => {
    const outcome = await preToolUseWith(
      decide('allow', { updatedInput: { command: 'make -j4' } }),
      decide('allow', { updatedInput: { command: 'make -j8' } }),
    );
    expect(outcome.blocked).toBe(true);
    expect(outcome.decision).toBe('deny');
    expect(outcome.reason).toMatch(
      /^PreToolUse hooks rewrote the input in different ways \(node .*; node .*\); orca will not pick one of them$/,
    );
  });

  it('the rewrite comes from the hook whose decision won', async () => {
    const outcome = await preToolUseWith(
      decide('allow', { updatedInput: { command: 'make -j8' } }),
      decide('ask', { updatedInput: { command: 'make -n' } }),
    );
    expect(outcome).toMatchObject({ decision: 'ask', updatedInput: { command: 'make -n' } });
  });

  it('no matching hook: an empty outcome and no events', async () => {
    const context = testHookContext();
    const outcome = await runHooks(
      hooksOf({ PreToolUse: [{ matcher: 'Write', hooks: [{ type: 'command', command: 'exit 2' }] }] }),
      'PreToolUse',
      preToolUse,
      context,
    );
    expect(outcome).toEqual({
      event: 'PreToolUse',
      results: [],
      blocked: false,
      updatedPermissions: [],
      additionalContext: [],
      systemMessages: [],
      retry: false,
    });
    expect(context.events).toEqual([]);
  });
});
