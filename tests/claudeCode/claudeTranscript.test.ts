import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/tempDir.js';
import { runClaudeCodeProject } from './harnessKit.js';

/**
 * A Stop hook written for Claude Code's transcript format: the last line with an assistant
 * message, its text blocks joined (as Anthropic's published loop hooks read it).
 */
function lastAssistantMessageHook(out: string): string {
  return [
    `transcript=$(jq -r .transcript_path)`,
    `grep -q '"role":"assistant"' "$transcript" || { echo "No assistant messages found in transcript" >&2; exit 1; }`,
    `grep '"role":"assistant"' "$transcript" | tail -1 | jq -r '.message.content | map(select(.type == "text")) | map(.text) | join("\\n")' > '${out}'`,
  ].join('; ');
}

describe("a transcript in Claude Code's format, where transcript_path points", () => {
  it('a Stop hook that reads it finds the last assistant message', async () => {
    const out = path.join(tempDir('orca-out-'), 'last.txt');
    const hooks = { Stop: [{ hooks: [{ type: 'command', command: lastAssistantMessageHook(out) }] }] };
    const run = await runClaudeCodeProject({
      files: { '.claude/settings.json': JSON.stringify({ hooks }) },
      turns: [
        { text: 'Looking at the file first.', tools: [{ name: 'Bash', input: { command: 'echo hi' } }] },
        { tools: [{ name: 'Report', input: { summary: 'The greeting works.', unresolved: [], claimed_checks: [] } }] },
      ],
    });
    expect(run.result.reason).toBe('report');
    expect(readFileSync(out, 'utf8')).toBe('The greeting works.\n');
    const hook = run.events.find((event) => event.type === 'hook' && event.event === 'Stop');
    expect(hook).toMatchObject({ outcome: 'ok', exit_code: 0 });
  });

  it('has user and assistant lines as Claude Code writes them, tool calls and results included', async () => {
    const out = path.join(tempDir('orca-out-'), 'path.txt');
    const hooks = { Stop: [{ hooks: [{ type: 'command', command: `jq -r .transcript_path > '${out}'` }] }] };
    await runClaudeCodeProject({
      files: { '.claude/settings.json': JSON.stringify({ hooks }) },
      turns: [
        { tools: [{ name: 'Bash', input: { command: 'echo hi' } }] },
        { tools: [{ name: 'Report', input: { summary: 'done', unresolved: [], claimed_checks: [] } }] },
      ],
    });
    const file = readFileSync(out, 'utf8').trim();
    expect(path.basename(file)).toBe('claude-code-transcript.jsonl');
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((line) => [line.type, line.message.role, line.message.content.map((block: { type: string }) => block.type)])).toEqual([
      ['user', 'user', ['text']],
      ['assistant', 'assistant', ['tool_use']],
      ['user', 'user', ['tool_result']],
      ['assistant', 'assistant', ['text']],
    ]);
    expect(lines[1].message.content[0]).toMatchObject({ name: 'Bash', input: { command: 'echo hi' } });
    expect(lines[1].parentUuid).toBe(lines[0].uuid);
  });
});
