import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Model } from '../../shared/core/model/model.js';
import { tempDir } from '../support/tempDir.js';
import { dumped, dumpHook, runClaudeCodeProject, WORKER_REPORT } from './harnessKit.js';

/** Every event with a catch-all hook that dumps its stdin, as a Claude Code settings file has them. */
function catchAll(dump: string, events: string[]): Record<string, unknown> {
  return Object.fromEntries(events.map((event) => [event, [dumpHook(dump)]]));
}

const EVENTS = [
  'SessionStart',
  'SubagentStart',
  'UserPromptSubmit',
  'InstructionsLoaded',
  'PreToolUse',
  'PermissionRequest',
  'Notification',
  'PermissionDenied',
  'PostToolUse',
  'PostToolUseFailure',
  'PostToolBatch',
  'Stop',
  'SubagentStop',
  'StopFailure',
  'SessionEnd',
];

describe("the hook events orca fires, with Claude Code's input fields", () => {
  it('fires InstructionsLoaded, PermissionDenied, Notification, PostToolUseFailure, PostToolBatch, SubagentStart and SubagentStop', async () => {
    const dump = path.join(tempDir('orca-dump-'), 'hooks.jsonl');
    const settings = { permissions: { deny: ['Bash(rm:*)'], ask: ['Bash(git push:*)'] }, hooks: catchAll(dump, EVENTS) };
    const run = await runClaudeCodeProject({
      files: {
        '.claude/settings.json': JSON.stringify(settings),
        'CLAUDE.md': '# Project\nUse tabs.\n',
        '.claude/rules/ts.md': '---\npaths: src/**/*.ts\n---\nPrefer const.\n',
        'src/a.ts': 'export const a = 1;\n',
      },
      stopEvent: 'SubagentStop',
      turns: [
        {
          tools: [
            { name: 'Read', input: { file_path: 'src/a.ts' } },
            { name: 'Read', input: { file_path: 'missing.txt' } },
          ],
        },
        { tools: [{ name: 'Bash', input: { command: 'rm src/a.ts' } }] },
        { tools: [{ name: 'Bash', input: { command: 'git push origin main' } }] },
        { tools: [{ name: 'Report', input: WORKER_REPORT }] },
      ],
    });
    expect(run.result.reason).toBe('report');
    const inputs = dumped(dump);
    const names = inputs.map((input) => input.hook_event_name);
    for (const event of [
      'SessionStart',
      'SubagentStart',
      'UserPromptSubmit',
      'InstructionsLoaded',
      'PreToolUse',
      'PostToolUse',
      'PostToolUseFailure',
      'PostToolBatch',
      'PermissionDenied',
      'PermissionRequest',
      'Notification',
      'SubagentStop',
      'SessionEnd',
    ])
      expect(names, event).toContain(event);
    expect(names).not.toContain('Stop');

    const loaded = inputs.filter((input) => input.hook_event_name === 'InstructionsLoaded');
    expect(loaded.map((input) => [path.relative(run.repo, String(input.file_path)), input.memory_type, input.load_reason])).toEqual([
      ['CLAUDE.md', 'Project', 'session_start'],
      ['.claude/rules/ts.md', 'Project', 'path_glob_match'],
    ]);
    expect(loaded[1]).toMatchObject({ globs: ['src/**/*.ts'], trigger_file_path: path.join(run.repo, 'src/a.ts') });

    const batch = inputs.find((input) => input.hook_event_name === 'PostToolBatch')!;
    expect((batch.tool_calls as { tool_name: string }[]).map((call) => call.tool_name)).toEqual(['Read', 'Read']);
    expect(inputs.find((input) => input.hook_event_name === 'PostToolUseFailure')).toMatchObject({
      tool_name: 'Read',
      error: expect.any(String),
      is_interrupt: false,
      duration_ms: expect.any(Number),
    });
    const denied = inputs.filter((input) => input.hook_event_name === 'PermissionDenied');
    expect(denied.map((input) => (input.tool_input as { command: string }).command)).toEqual(['rm src/a.ts', 'git push origin main']);
    expect(denied[0]).toMatchObject({ tool_name: 'Bash', tool_use_id: expect.any(String), reason: expect.stringContaining('rm') });
    expect(inputs.find((input) => input.hook_event_name === 'Notification')).toMatchObject({
      notification_type: 'permission_prompt',
      message: expect.stringContaining('Bash'),
    });
    expect(inputs.find((input) => input.hook_event_name === 'SubagentStart')).toMatchObject({ agent_type: 'worker' });
  });

  it('fires StopFailure when a model call fails, with the kind of error', async () => {
    const dump = path.join(tempDir('orca-dump-'), 'hooks.jsonl');
    const failing: Model = {
      id: 'failing-model',
      scripted: true,
      // biome-ignore lint/correctness/useYield: a model whose call fails before it streams anything
      async *stream() {
        throw new Error('429 rate_limit_error: slow down');
      },
      cost: () => 0,
    };
    const run = await runClaudeCodeProject({
      files: { '.claude/settings.json': JSON.stringify({ hooks: catchAll(dump, EVENTS) }) },
      turns: [],
      extra: { model: failing },
    });
    expect(run.result.reason).toBe('error');
    const failure = dumped(dump).find((input) => input.hook_event_name === 'StopFailure');
    expect(failure).toMatchObject({ error: 'rate_limit', error_details: expect.stringContaining('429') });
    expect(dumped(dump).map((input) => input.hook_event_name)).not.toContain('Stop');
  });
});
