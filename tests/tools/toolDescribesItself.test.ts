import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { collectCheckEvidence } from '../../shared/context/compaction/checkEvidence.js';
import { localHandoffProse } from '../../shared/context/compaction/handoff.js';
import { findClearable, placeholderFor } from '../../shared/context/compaction/microcompact.js';
import { findSnippable } from '../../shared/context/compaction/snip.js';
import { type ToolCall, toolCallsIn } from '../../shared/context/compaction/toolCalls.js';
import { Workspace } from '../../shared/core/files/workspace.js';
import type { AgentSession } from '../../shared/core/loop/session.js';
import type { ScriptTurn } from '../../shared/core/model/scriptFile.js';
import { modeOnlySlots, runToolCall } from '../../shared/core/tool/pipeline.js';
import type { ReadResultData } from '../../shared/core/tool/readResultData.js';
import { ToolRegistry } from '../../shared/core/tool/registry.js';
import { type AnyTool, defineTool } from '../../shared/core/tool/tool.js';
import { createHarnessSlots } from '../../shared/policy/hooks/toolSlots.js';
import { PermissionPolicy } from '../../shared/policy/permissions/policy.js';
import { parseRule, RULE_BEHAVIORS, type RuleBehavior } from '../../shared/policy/permissions/rule.js';
import { readTool } from '../../shared/tools/read.js';
import { REPORT_TURN, runScripted } from '../context/scriptedSession.js';
import { hooksOf, recorded, respondHook } from '../hooks/hookTestKit.js';
import { tempDir } from '../support/tempDir.js';
import { makeToolContext } from '../support/toolContext.js';

/**
 * A tool that exists only here, in no catalog and under a name no layer has heard of: a read
 * tool. Everything orca does with it below comes from what it says about itself.
 */
const peekTool = defineTool({
  name: 'Peek',
  description: 'Shows lines of a text file.',
  input: z.strictObject({
    file_path: z.string(),
    offset: z.number().int().positive().optional(),
    limit: z.number().int().positive().optional(),
  }),
  level: 'read-only',
  readOnly: true,
  family: 'read',
  rule: { kind: 'path', field: 'file_path' },
  results: { kind: 'file-read' },
  hookInputDefaults: { offset: 1 },
  hookResponse: async (data) => ({ peeked: data }),
  async call(input, ctx) {
    const filePath = ctx.workspace.resolve(input.file_path, 'read');
    const lines = readFileSync(filePath, 'utf8').split('\n');
    const startLine = input.offset ?? 1;
    const shown = lines.slice(startLine - 1, input.limit === undefined ? undefined : startLine - 1 + input.limit);
    const data: ReadResultData = {
      type: 'text',
      file: { filePath, content: shown.join('\n'), numLines: shown.length, startLine, totalLines: lines.length },
    };
    return { content: shown.join('\n'), data };
  },
});

type Rules = Partial<Record<RuleBehavior, string[]>>;

function judge(rules: Rules, file: string) {
  const parsed = RULE_BEHAVIORS.flatMap((behavior) => (rules[behavior] ?? []).map((text) => parseRule(text, behavior, 'test settings')));
  const workspace = new Workspace(tempDir('orca-peek-'));
  return new PermissionPolicy(parsed).decide(
    { tool: peekTool, input: { file_path: file }, level: 'read-only' },
    { mode: 'read-only', workspace },
  );
}

describe('a tool described only by its definition', () => {
  it('permission rules name it by its path: Peek(src/**) allows and denies by the file it names', () => {
    expect(judge({ allow: ['Peek(src/**)'] }, 'src/a.ts').by).toBe('allow:Peek(src/**) in test settings');
    expect(judge({ allow: ['Peek(src/**)'] }, 'lib/a.ts').by).toBe('mode:read-only');
    expect(judge({ deny: ['Peek(secrets/**)'] }, 'secrets/key.pem')).toMatchObject({
      behavior: 'deny',
      by: 'deny:Peek(secrets/**) in test settings',
    });
    expect(judge({ deny: ['Peek(secrets/**)'] }, 'src/a.ts').behavior).toBe('allow');
    // Its path is a path the workspace must hold, as Read's is.
    expect(judge({}, '../outside.txt')).toMatchObject({ behavior: 'deny', by: 'workspace' });
  });

  it('a Read(…) rule covers it through its family, an Edit(…) rule does not', () => {
    expect(judge({ deny: ['Read(secrets/**)'] }, 'secrets/key.pem')).toMatchObject({
      behavior: 'deny',
      by: 'deny:Read(secrets/**) in test settings',
    });
    expect(judge({ deny: ['Read(secrets/**)'] }, 'src/a.ts').behavior).toBe('allow');
    expect(judge({ deny: ['Edit(secrets/**)'] }, 'secrets/key.pem').behavior).toBe('allow');
  });

  it('a hook matching Peek fires on it and reads its input and response in the shapes it declares; its output reaches the model as data', async () => {
    const ctx = makeToolContext({ mode: 'read-only' });
    writeFileSync(path.join(ctx.workspace.root, 'notes.txt'), 'first\nsecond\n');
    const dir = tempDir('orca-peek-hooks-');
    const record = path.join(dir, 'calls.jsonl');
    const hook = { matcher: 'Peek', hooks: [{ type: 'command', command: respondHook(dir, { record }) }] };
    const slots = createHarnessSlots({ hooks: hooksOf({ PreToolUse: [hook], PostToolUse: [hook] }), permission: modeOnlySlots.permission });

    const run = await runToolCall(
      { id: 'toolu_1', name: 'Peek', input: { file_path: 'notes.txt' } },
      new ToolRegistry([peekTool]),
      slots,
      ctx,
    );

    expect(run.block.is_error).toBeUndefined();
    expect(run.block.content).toContain('<untrusted-data source="Peek"');
    const [pre, post] = recorded(record).map((line) => line.input);
    const input = { file_path: path.join(ctx.workspace.root, 'notes.txt'), offset: 1 };
    expect(pre).toMatchObject({ hook_event_name: 'PreToolUse', tool_name: 'Peek', tool_input: input });
    expect(post).toMatchObject({
      hook_event_name: 'PostToolUse',
      tool_name: 'Peek',
      tool_input: input,
      tool_response: { peeked: { type: 'text', file: { content: 'first\nsecond\n', startLine: 1 } } },
    });
  });

  it('compaction treats its old results as it treats Read’s: cleared, superseded, listed as read', async () => {
    const peeked = await compactionOf(peekTool);
    const read = await compactionOf(readTool);
    // Both reads may be cleared; the first one's placeholder says to read the file again.
    expect(peeked.clearable).toEqual([0, 1]);
    expect(read.clearable).toEqual(peeked.clearable);
    expect(peeked.placeholder).toMatch(
      /^\[Old result cleared from the context to save space: Peek src\/a\.ts \(offset 1, limit 5\) succeeded\. Read the file again/,
    );
    expect(read.placeholder).toBe(peeked.placeholder.replace('Peek', 'Read'));
    // The partial read is dropped once the whole file was read.
    expect(peeked.snipped).toEqual([{ call: 0, reason: 'superseded by a later whole Read of src/a.ts' }]);
    expect(read.snipped).toEqual(peeked.snipped);
    expect(peeked.touched).toBe('- src/a.ts: read');
    expect(read.touched).toBe(peeked.touched);
  });

  it('a call named Read that ran with no definition is kept as it is: compaction goes by what a tool says, not by its name', async () => {
    const session = await sessionWith(readTool);
    const calls = toolCallsIn(session.messages, session.ledger.all()).map((call): ToolCall => ({ ...call, tool: undefined }));
    expect(calls.map((call) => call.name)).toEqual(['Read', 'Read', 'Report']);
    expect(findClearable(calls, { keep: 0, skip: () => false })).toEqual([]);
    expect(findSnippable(calls, session.workspace.root, () => false)).toEqual([]);
  });
});

/** A real session that reads src/a.ts in part, then whole, with `tool` under its own name, then reports. */
async function sessionWith(tool: AnyTool): Promise<AgentSession> {
  const root = tempDir('orca-peek-session-');
  mkdirSync(path.join(root, 'src'));
  writeFileSync(
    path.join(root, 'src', 'a.ts'),
    `${Array.from({ length: 40 }, (_, index) => `const line${index} = ${index};`).join('\n')}\n`,
  );
  const read = (input: Record<string, unknown>): ScriptTurn => ({
    tools: [{ name: tool.name, input: { file_path: 'src/a.ts', ...input } }],
  });
  const { session } = await runScripted({ root, tools: [tool], turns: [read({ offset: 1, limit: 5 }), read({}), REPORT_TURN] });
  return session;
}

/**
 * What compaction makes of that session's calls, by their place in it: which old results may be
 * cleared, the first one's placeholder, what snip drops, the hand-off's files touched.
 */
async function compactionOf(tool: AnyTool) {
  const session = await sessionWith(tool);
  const root = session.workspace.root;
  const sessionDir = session.toolContext.session.dir;
  const ledger = session.ledger.all();
  const calls = toolCallsIn(session.messages, ledger);
  const place = (call: ToolCall) => calls.indexOf(call);
  const clearable = findClearable(calls, { keep: 0, skip: () => false });
  const evidence = collectCheckEvidence({ ledger, messages: session.messages, root, sessionDir });
  const prose = localHandoffProse({ messages: session.messages, ledger, root, sessionDir, evidence, skillsInUse: [] });
  return {
    clearable: clearable.map(place),
    placeholder: placeholderFor(clearable[0]!, root, sessionDir),
    snipped: findSnippable(calls, root, () => false).map((cut) => ({ call: place(cut.call), reason: cut.reason.replace(`${root}/`, '') })),
    touched: /## Files touched\n([^\n]*)/.exec(prose)?.[1],
  };
}
