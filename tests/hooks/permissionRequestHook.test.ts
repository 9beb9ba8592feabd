import { describe, expect, it } from 'vitest';
import { permissionRequestHook } from '../../shared/policy/hooks/permissionRequest.js';
import { tempDir } from '../support/tempDir.js';
import { makeToolContext } from '../support/toolContext.js';
import { toolNamed } from '../support/toolNamed.js';
import { exitHook, hooksOf, recorded, respondHook } from './hookTestKit.js';

const request = { tool: toolNamed('Bash'), input: { command: 'npm publish' }, suggestion: ['Bash(npm publish:*)'] };

function fire(command: string, matcher = 'Bash') {
  const ctx = makeToolContext();
  const hook = permissionRequestHook(hooksOf({ PermissionRequest: [{ matcher, hooks: [{ type: 'command', command }] }] }));
  return { ctx, answer: hook(request, ctx) };
}

describe('PermissionRequest hooks, fired before anyone is asked', () => {
  it('read Claude Code’s input: the call and the suggested rule as an addRules entry, no tool_use_id', async () => {
    const dir = tempDir();
    const record = `${dir}/calls.jsonl`;
    const { answer } = fire(respondHook(dir, { record }));
    await expect(answer).resolves.toBeUndefined();
    const { input } = recorded(record)[0]!;
    expect(input).toMatchObject({
      hook_event_name: 'PermissionRequest',
      tool_name: 'Bash',
      tool_input: { command: 'npm publish' },
      permission_suggestions: [
        { type: 'addRules', rules: [{ toolName: 'Bash', ruleContent: 'npm publish:*' }], behavior: 'allow', destination: 'session' },
      ],
    });
    expect(input).not.toHaveProperty('tool_use_id');
  });

  it('allow, with the input rewritten and the rules to keep; entries orca does not apply are named in a notice', async () => {
    const dir = tempDir();
    const { answer, ctx } = fire(
      respondHook(dir, {
        stdout: {
          hookSpecificOutput: {
            hookEventName: 'PermissionRequest',
            decision: {
              behavior: 'allow',
              updatedInput: { command: 'npm publish --dry-run' },
              updatedPermissions: [
                {
                  type: 'addRules',
                  rules: [{ toolName: 'Bash', ruleContent: 'npm publish:*' }, { toolName: 'Read' }],
                  behavior: 'allow',
                  destination: 'localSettings',
                },
                { type: 'setMode', mode: 'acceptEdits', destination: 'session' },
              ],
            },
          },
        },
      }),
    );
    await expect(answer).resolves.toMatchObject({
      behavior: 'allow',
      updatedInput: { command: 'npm publish --dry-run' },
      remember: ['Bash(npm publish:*)', 'Read'],
      interrupt: false,
    });
    expect(ctx.events).toContainEqual(
      expect.objectContaining({
        type: 'notice',
        message: expect.stringMatching(/orca applies only addRules entries with behavior allow \(for this session\); ignored: setMode$/),
      }),
    );
  });

  it('deny with a message (and interrupt), or exit 2 with stderr; a hook for another tool is not run', async () => {
    const dir = tempDir();
    const denied = fire(
      respondHook(dir, {
        stdout: {
          hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'deny', message: 'not on CI', interrupt: true } },
        },
      }),
    );
    await expect(denied.answer).resolves.toMatchObject({ behavior: 'deny', reason: 'not on CI', interrupt: true });
    await expect(fire(exitHook(2, 'publishing is frozen')).answer).resolves.toMatchObject({
      behavior: 'deny',
      reason: 'publishing is frozen',
      interrupt: false,
    });
    await expect(fire(exitHook(2, 'never runs'), 'Write').answer).resolves.toBeUndefined();
    // A hook that fails otherwise decides nothing: the question goes on to a person.
    await expect(fire(exitHook(1, 'broken')).answer).resolves.toBeUndefined();
  });
});
