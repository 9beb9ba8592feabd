import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { HOOK_EVENTS } from '../../shared/policy/hooks/hookEvents.js';
import { type FieldTable, fieldTable } from '../support/hookFields.js';
import { tempDir } from '../support/tempDir.js';
import { dumped, dumpHook, runClaudeCodeProject } from './harnessKit.js';

/**
 * The field names and types Claude Code itself sent its hooks, recorded by
 * `npm run compat:claude-code` (the same four turns: Read, Edit, Bash, the final answer).
 */
const FIXTURE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/claudeCode/hookFields.json');
const recorded = JSON.parse(readFileSync(FIXTURE, 'utf8')) as { claude_code_version: string; events: FieldTable };

describe(`hook input fields against Claude Code ${recorded.claude_code_version}`, () => {
  it('orca sends every field Claude Code sends, with its type, for every event both fire', async () => {
    const dump = path.join(tempDir('orca-dump-'), 'hooks.jsonl');
    const hooks = Object.fromEntries(HOOK_EVENTS.map((event) => [event, [dumpHook(dump)]]));
    const run = await runClaudeCodeProject({
      files: { '.claude/settings.json': JSON.stringify({ hooks }), 'greet.txt': 'hello\nworld\n' },
      sandbox: true,
      turns: [
        { tools: [{ name: 'Read', input: { file_path: 'greet.txt' } }] },
        { tools: [{ name: 'Edit', input: { file_path: 'greet.txt', old_string: 'world', new_string: 'there' } }] },
        { tools: [{ name: 'Bash', input: { command: 'echo done' } }] },
        { tools: [{ name: 'Report', input: { summary: 'Changed the greeting.', unresolved: [], claimed_checks: [] } }] },
      ],
    });
    expect(run.result.reason).toBe('report');
    const orca = fieldTable(dumped(dump));
    const fired = new Set<string>(HOOK_EVENTS);
    const differences: string[] = [];
    for (const [event, fields] of Object.entries(recorded.events)) {
      if (!fired.has(event.replace(/\[.*\]$/, ''))) continue;
      if (!orca[event]) {
        differences.push(`${event}: not fired`);
        continue;
      }
      for (const [field, type] of Object.entries(fields)) {
        if (orca[event]![field] !== type)
          differences.push(`${event} ${field}: Claude Code ${type}, orca ${orca[event]![field] ?? 'missing'}`);
      }
    }
    expect(differences).toEqual([]);
  });
});
