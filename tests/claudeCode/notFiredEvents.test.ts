import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/tempDir.js';
import { dumped, dumpHook, runClaudeCodeProject, WORKER_REPORT } from './harnessKit.js';

describe('a settings file with a Claude Code event orca does not fire', () => {
  it('keeps the file: its other hooks run, and the event is reported once', async () => {
    const dump = path.join(tempDir('orca-dump-'), 'hooks.jsonl');
    const settings = {
      permissions: { allow: ['Bash(echo:*)'] },
      hooks: {
        Setup: [{ hooks: [{ type: 'command', command: 'echo setting up' }] }],
        PreToolUse: [dumpHook(dump, 'Bash')],
      },
    };
    const run = await runClaudeCodeProject({
      files: { '.claude/settings.json': JSON.stringify(settings, null, 2) },
      turns: [{ tools: [{ name: 'Bash', input: { command: 'echo hi' } }] }, { tools: [{ name: 'Report', input: WORKER_REPORT }] }],
    });
    expect(run.result.reason).toBe('report');
    expect(dumped(dump).map((input) => [input.hook_event_name, input.tool_name])).toEqual([['PreToolUse', 'Bash']]);
    const notices = run.events.filter((event) => event.type === 'notice' && event.message.includes('not fired by orca'));
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({ message: expect.stringContaining('hooks: not fired by orca: Setup (in .claude/settings.json)') });
  });
});
