import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/tempDir.js';
import { dumped, dumpHook, runClaudeCodeProject } from './harnessKit.js';

/** A policy hook as people write them for Claude Code: every tool it does not know is refused. */
const DENY_UNKNOWN_TOOLS = `tool=$(node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).tool_name))'); case "$tool" in Read|Edit|Write|Bash|Glob|Grep) exit 0;; *) echo "unknown tool $tool" >&2; exit 2;; esac`;

describe("orca's Report is the agent's final answer, not a tool, to hooks", () => {
  for (const stopEvent of ['Stop', 'SubagentStop'] as const) {
    it(`a catch-all PreToolUse policy hook does not see it, and ${stopEvent} gets it as last_assistant_message`, async () => {
      const dump = path.join(tempDir('orca-dump-'), 'hooks.jsonl');
      const hooks = {
        PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: DENY_UNKNOWN_TOOLS }] }, dumpHook(dump)],
        PostToolUse: [dumpHook(dump)],
        [stopEvent]: [dumpHook(dump)],
      };
      const run = await runClaudeCodeProject({
        files: { '.claude/settings.json': JSON.stringify({ hooks }) },
        stopEvent,
        turns: [
          { tools: [{ name: 'Bash', input: { command: 'echo hi' } }] },
          { tools: [{ name: 'Report', input: { summary: 'all done here', unresolved: [], claimed_checks: [] } }] },
        ],
      });
      expect(run.result.reason).toBe('report');
      const inputs = dumped(dump);
      expect(inputs.map((input) => [input.hook_event_name, input.tool_name ?? null])).toEqual([
        ['PreToolUse', 'Bash'],
        ['PostToolUse', 'Bash'],
        [stopEvent, null],
      ]);
      expect(inputs[2]).toMatchObject({ last_assistant_message: 'all done here', stop_hook_active: false });
    });
  }
});
