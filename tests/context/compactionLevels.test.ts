import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { CompactionConfigInput } from '../../shared/context/compaction/compactionConfig.js';
import { createContextAssembler } from '../../shared/context/prompt/assembler.js';
import type { AgentEvent } from '../../shared/core/events/agentEvent.js';
import type { ScriptTurn } from '../../shared/core/model/scriptFile.js';
import { defineTool } from '../../shared/core/tool/tool.js';
import { bashTool } from '../../shared/tools/bash.js';
import { editTool } from '../../shared/tools/edit.js';
import { readTool } from '../../shared/tools/read.js';
import { makeRepo } from '../support/gitRepo.js';
import { tempDir } from '../support/tempDir.js';
import { bash, messagesText, REPORT_TURN, read, runScripted } from './scriptedSession.js';
import { expectValidConversation } from './viewChecks.js';

/** Every level on from the first call (threshold 0), no minimum saving: what each one does, in isolation. */
function only(level: 'snip' | 'microcompact' | 'collapse'): CompactionConfigInput {
  return {
    contextWindow: 1_000_000,
    reservedOutputTokens: 0,
    minSavings: 0,
    autocompact: false,
    snipAt: level === 'snip' ? 1e-9 : 2,
    microcompactAt: level === 'microcompact' ? 1e-9 : 2,
    collapseAt: level === 'collapse' ? 1e-9 : 2,
  };
}

function levels(events: AgentEvent[]): string[] {
  return events.flatMap((event) => (event.type === 'compaction' ? [event.level] : []));
}

function useIds(messages: { content: Array<{ type: string; id?: string }> }[]): string[] {
  return messages.flatMap((message) => message.content.flatMap((block) => (block.type === 'tool_use' ? [block.id!] : [])));
}

/** A stand-in for the task-list layer's TaskUpdate, a change to the task list: it only has to succeed for the transcript to show a task span. */
const taskUpdateTool = defineTool({
  name: 'TaskUpdate',
  description: 'Updates a task.',
  input: z.object({ taskId: z.string(), status: z.enum(['pending', 'in_progress', 'completed']) }),
  level: 'read-only',
  readOnly: true,
  results: { kind: 'task-change' },
  async call(input) {
    return { content: `Task ${input.taskId} is now ${input.status}.` };
  },
});

const FILE = `${Array.from({ length: 120 }, (_, index) => `const value${index} = ${index}; // some code on line ${index + 1}`).join('\n')}\n`;

describe('snip', () => {
  it('drops a partial Read later read whole, "unchanged" stubs and failed edits later done; never a Bash run', async () => {
    const repo = makeRepo({ 'a.ts': FILE });
    const turns: ScriptTurn[] = [
      read('a.ts', { offset: 1, limit: 10 }),
      read('a.ts'),
      read('a.ts'),
      { tools: [{ name: 'Edit', input: { file_path: 'a.ts', old_string: 'no such text', new_string: 'x' } }] },
      { tools: [{ name: 'Edit', input: { file_path: 'a.ts', old_string: 'const value7 = 7;', new_string: 'const value7 = 70;' } }] },
      bash('exit 3'),
      bash('echo later'),
      REPORT_TURN,
    ];
    const { model, session, events } = await runScripted({
      root: repo,
      turns,
      context: createContextAssembler({ homeDir: tempDir('orca-home-'), compaction: only('snip') }),
    });
    const ids = useIds(session.messages);
    const last = model.requests.at(-1)!;
    const sent = useIds(last.messages);
    expect(sent).not.toContain(ids[0]); // the partial read
    expect(sent).toContain(ids[1]); // the whole read
    expect(sent).not.toContain(ids[2]); // the "unchanged" stub
    expect(sent).not.toContain(ids[3]); // the failed Edit, later done
    expect(sent).toContain(ids[4]);
    expect(sent).toContain(ids[5]); // Bash exit 3 stays: it is evidence
    expect(levels(events)).toContain('snip');
    for (const request of model.requests) expectValidConversation(request.messages);
    // The transcript keeps all of it.
    expect(useIds(session.messages)).toHaveLength(8);
  });
});

describe('microcompact', () => {
  it('keeps the 5 most recent results and leaves a one-line placeholder with the tool, input and a path', async () => {
    const repo = makeRepo({ 'a.ts': FILE });
    const turns: ScriptTurn[] = [
      read('a.ts'),
      bash(`head -c 40000 /dev/zero | tr '\\0' q`),
      ...Array.from({ length: 6 }, (_, index) => bash(`seq 1 ${300 + index}`)),
      read('a.ts'),
      REPORT_TURN,
    ];
    const { model, session, events } = await runScripted({
      root: repo,
      turns,
      tools: [readTool, editTool, bashTool],
      context: createContextAssembler({ homeDir: tempDir('orca-home-'), compaction: only('microcompact') }),
    });
    expect(levels(events)).toContain('microcompact');
    const ids = useIds(session.messages);
    const finalView = model.requests.at(-1)!;
    const results = new Map(
      finalView.messages.flatMap((message) =>
        message.content.flatMap((block) => (block.type === 'tool_result' ? [[block.tool_use_id, block.content] as const] : [])),
      ),
    );
    // The newest result and the 5 before it are whole; older ones are one-line placeholders.
    for (const id of ids.slice(-6, -1)) expect(results.get(id)).not.toMatch(/^\[Old result cleared/);
    expect(results.get(ids[0]!)).toBe(
      '[Old result cleared from the context to save space: Read a.ts succeeded. Read the file again if you need it; it may have changed since.]',
    );
    const spilled = results.get(ids[1]!)!;
    const spill = session.ledger.all()[1]!.spilledTo!;
    expect(spilled).toBe(
      `[Old result cleared from the context to save space: Bash \`head -c 40000 /dev/zero | tr '\\0' q\` → exit code 0. The whole result is in ${spill}: Read or Grep it if you need it.]`,
    );
    const archived = /The whole result is in (\S+):/.exec(results.get(ids[2]!)!)![1]!;
    expect(readFileSync(archived, 'utf8')).toContain('\n300\nExit code: 0');
    for (const request of model.requests) expectValidConversation(request.messages);
    // Its Read was cleared, so the second Read of a.ts shows the file, not an "unchanged" stub.
    const reread = session.messages.at(-3)!.content.find((block) => block.type === 'tool_result');
    expect(reread?.type === 'tool_result' && reread.content).toContain('const value0 = 0;');
    expect(existsSync(spill)).toBe(true);
  });
});

describe('collapse', () => {
  it('folds a finished task span in the view only, and never one whose end the model has not seen', async () => {
    const repo = makeRepo({ 'a.ts': FILE });
    const turns: ScriptTurn[] = [
      { tools: [{ name: 'TaskUpdate', input: { taskId: '7', status: 'in_progress' } }] },
      read('a.ts'),
      { tools: [{ name: 'Edit', input: { file_path: 'a.ts', old_string: 'const value3 = 3;', new_string: 'const value3 = 30;' } }] },
      { text: 'Task 7 is done.', tools: [{ name: 'TaskUpdate', input: { taskId: '7', status: 'completed' } }] },
      bash('echo next task'),
      REPORT_TURN,
    ];
    const { model, session, events } = await runScripted({
      root: repo,
      turns,
      tools: [readTool, editTool, bashTool, taskUpdateTool],
      context: createContextAssembler({ homeDir: tempDir('orca-home-'), compaction: only('collapse') }),
    });
    const ids = useIds(session.messages);
    // When the completing update's result is the newest message, nothing folds yet.
    expect(useIds(model.requests[4]!.messages)).toEqual(ids.slice(0, 4));
    // One call later it has been seen: the whole span is one line.
    const folded = model.requests[5]!;
    expect(useIds(folded.messages)).toEqual([ids[4]]);
    expect(messagesText(folded)).toContain(
      '[Collapsed from the view to save context; the session transcript keeps it whole. Finished: task 7 went in_progress at turn 1 and was completed at turn 4. 4 tool calls in between: TaskUpdate {"taskId":"7","status":"in_progress"}; Read a.ts; Edit a.ts; TaskUpdate {"taskId":"7","status":"completed"}.\nYour last note in it: Task 7 is done.]',
    );
    expect(levels(events)).toEqual(['collapse']);
    for (const request of model.requests) expectValidConversation(request.messages);
    expect(useIds(session.messages)).toHaveLength(6);
    expect(JSON.stringify(session.messages)).toContain('const value3 = 30;');
  });
});
