import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/tempDir.js';
import { dumped, dumpHook, runClaudeCodeProject, WORKER_REPORT } from './harnessKit.js';

describe("hook input in Claude Code's shapes", () => {
  it("a PostToolUse hook reads .tool_response.stdout of a Bash call; Edit's response and input are Claude Code's", async () => {
    const dir = tempDir('orca-dump-');
    const dump = path.join(dir, 'hooks.jsonl');
    const stdoutFile = path.join(dir, 'stdout.txt');
    const hooks = {
      PostToolUse: [
        { matcher: 'Bash', hooks: [{ type: 'command', command: `jq -r .tool_response.stdout > '${stdoutFile}'` }] },
        dumpHook(dump),
      ],
      PreToolUse: [dumpHook(dump)],
      Stop: [dumpHook(dump)],
      SessionEnd: [dumpHook(dump)],
    };
    const run = await runClaudeCodeProject({
      files: { '.claude/settings.json': JSON.stringify({ hooks }), 'greet.txt': 'hello\nworld\n' },
      sandbox: true,
      turns: [
        { tools: [{ name: 'Bash', input: { command: 'echo out; echo err >&2' } }] },
        { tools: [{ name: 'Read', input: { file_path: 'greet.txt' } }] },
        { tools: [{ name: 'Edit', input: { file_path: 'greet.txt', old_string: 'world', new_string: 'there' } }] },
        { text: 'Changed the greeting.', tools: [{ name: 'Report', input: WORKER_REPORT }] },
      ],
    });
    expect(run.result.reason).toBe('report');
    expect(readFileSync(stdoutFile, 'utf8')).toBe('out\n');

    const inputs = dumped(dump);
    const post = (tool: string) => inputs.find((input) => input.hook_event_name === 'PostToolUse' && input.tool_name === tool)!;
    expect(post('Bash').tool_response).toEqual({
      stdout: 'out',
      stderr: 'err',
      interrupted: false,
      isImage: false,
      noOutputExpected: false,
    });
    expect(post('Bash').duration_ms).toEqual(expect.any(Number));
    const file = path.join(run.repo, 'greet.txt');
    expect(post('Edit').tool_input).toEqual({ file_path: file, old_string: 'world', new_string: 'there', replace_all: false });
    expect(post('Edit').tool_response).toEqual({
      filePath: file,
      oldString: 'world',
      newString: 'there',
      originalFile: 'hello\nworld\n',
      structuredPatch: [{ oldStart: 1, oldLines: 2, newStart: 1, newLines: 2, lines: [' hello', '-world', '+there'] }],
      userModified: false,
      replaceAll: false,
    });
    const pre = inputs.find((input) => input.hook_event_name === 'PreToolUse' && input.tool_name === 'Edit')!;
    expect(pre.tool_input).toMatchObject({ replace_all: false });

    const stop = inputs.find((input) => input.hook_event_name === 'Stop')!;
    expect(stop.last_assistant_message).toBe('Changed the greeting.');
    expect(inputs.find((input) => input.hook_event_name === 'SessionEnd')).toMatchObject({ reason: 'other' });
    // A worker with full access and Bash in the sandbox: what Claude Code calls accepting edits.
    expect(new Set(inputs.map((input) => input.permission_mode))).toEqual(new Set(['acceptEdits']));
  });
});
