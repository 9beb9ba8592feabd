import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { CompactionConfigInput } from '../../shared/context/compaction/compactionConfig.js';
import { createContextAssembler } from '../../shared/context/prompt/assembler.js';
import type { AgentEvent } from '../../shared/core/events/agentEvent.js';
import type { Message, ThinkingBlock } from '../../shared/core/model/message.js';
import type { ScriptTurn } from '../../shared/core/model/scriptFile.js';
import { defineTool } from '../../shared/core/tool/tool.js';
import { bashTool } from '../../shared/tools/bash.js';
import { editTool } from '../../shared/tools/edit.js';
import { readTool } from '../../shared/tools/read.js';
import { makeRepo } from '../support/gitRepo.js';
import { tempDir } from '../support/tempDir.js';
import { bash, REPORT_TURN, read, runScripted } from './scriptedSession.js';
import { expectValidConversation } from './viewChecks.js';

/**
 * Every compaction level with a model that thinks on every turn: a request never holds an
 * assistant turn's tool calls without the thinking blocks that turn came with, exactly as they
 * came and first in it; a level that takes a turn away takes it whole.
 */

/** Each turn thinks first, as a thinking model's would. */
function thinking(turns: ScriptTurn[]): ScriptTurn[] {
  return turns.map((turn, index) => ({ thinking: `Reasoning of turn ${index + 1}.`, ...turn }));
}

/** One level from the first call on, no minimum saving. */
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

/**
 * The rule, checked on one request against the transcript: each assistant turn of the request
 * that holds a tool call starts with the thinking of the transcript turn that made the call, block
 * for block; no thinking block is one the transcript does not have.
 */
function expectThinkingKept(transcript: readonly Message[], sent: readonly Message[]): { turns: number } {
  const turnOf = new Map<string, ThinkingBlock[]>();
  const all = new Set<string>();
  for (const message of transcript) {
    if (message.role !== 'assistant') continue;
    const thought = message.content.filter((block): block is ThinkingBlock => block.type === 'thinking');
    for (const block of thought) all.add(JSON.stringify(block));
    for (const block of message.content) if (block.type === 'tool_use') turnOf.set(block.id, thought);
  }
  let turns = 0;
  for (const message of sent) {
    if (message.role !== 'assistant') continue;
    turns += 1;
    for (const block of message.content) if (block.type === 'thinking') expect(all.has(JSON.stringify(block))).toBe(true);
    for (const [index, block] of message.content.entries()) {
      if (block.type !== 'tool_use') continue;
      const expected = turnOf.get(block.id)!;
      expect(expected.length).toBeGreaterThan(0);
      const before = message.content.slice(0, index).filter((candidate) => candidate.type === 'thinking');
      for (const wanted of expected) expect(before).toContainEqual(wanted);
    }
    expect(message.content[0]?.type).toBe('thinking');
  }
  return { turns };
}

const FILE = `${Array.from({ length: 120 }, (_, index) => `const value${index} = ${index}; // some code on line ${index + 1}`).join('\n')}\n`;

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

describe('thinking blocks through compaction', () => {
  it('snip: a turn whose only call was snipped goes whole; the others keep their thinking', async () => {
    const repo = makeRepo({ 'a.ts': FILE });
    const { model, session, events } = await runScripted({
      root: repo,
      turns: thinking([read('a.ts', { offset: 1, limit: 10 }), read('a.ts'), bash('echo later'), REPORT_TURN]),
      context: createContextAssembler({ homeDir: tempDir('orca-home-'), compaction: only('snip') }),
    });
    expect(levels(events)).toContain('snip');
    const last = model.requests.at(-1)!;
    // The partial read's turn is gone, its thinking with it.
    expect(JSON.stringify(last.messages)).not.toContain('Reasoning of turn 1.');
    expect(expectThinkingKept(session.messages, last.messages).turns).toBe(2);
    for (const request of model.requests) {
      expectThinkingKept(session.messages, request.messages);
      expectValidConversation(request.messages);
    }
  });

  it('microcompact: old results become placeholders, every turn keeps its thinking', async () => {
    const repo = makeRepo({ 'a.ts': FILE });
    const { model, session, events } = await runScripted({
      root: repo,
      turns: thinking([read('a.ts'), ...Array.from({ length: 7 }, (_, index) => bash(`seq 1 ${300 + index}`)), REPORT_TURN]),
      tools: [readTool, editTool, bashTool],
      context: createContextAssembler({ homeDir: tempDir('orca-home-'), compaction: only('microcompact') }),
    });
    expect(levels(events)).toContain('microcompact');
    const last = model.requests.at(-1)!;
    expect(JSON.stringify(last.messages)).toContain('[Old result cleared from the context');
    expect(expectThinkingKept(session.messages, last.messages).turns).toBe(8);
    for (const request of model.requests) {
      expectThinkingKept(session.messages, request.messages);
      expectValidConversation(request.messages);
    }
  });

  it('collapse: a folded span takes its turns whole, the turns after it keep their thinking', async () => {
    const repo = makeRepo({ 'a.ts': FILE });
    const { model, session, events } = await runScripted({
      root: repo,
      turns: thinking([
        { tools: [{ name: 'TaskUpdate', input: { taskId: '7', status: 'in_progress' } }] },
        read('a.ts'),
        { text: 'Task 7 is done.', tools: [{ name: 'TaskUpdate', input: { taskId: '7', status: 'completed' } }] },
        bash('echo next task'),
        REPORT_TURN,
      ]),
      tools: [readTool, editTool, bashTool, taskUpdateTool],
      context: createContextAssembler({ homeDir: tempDir('orca-home-'), compaction: only('collapse') }),
    });
    expect(levels(events)).toEqual(['collapse']);
    const last = model.requests.at(-1)!;
    expect(JSON.stringify(last.messages)).toContain('[Collapsed from the view');
    const text = JSON.stringify(last.messages);
    for (const turn of [1, 2, 3]) expect(text).not.toContain(`Reasoning of turn ${turn}.`);
    expect(expectThinkingKept(session.messages, last.messages).turns).toBe(1);
    for (const request of model.requests) {
      expectThinkingKept(session.messages, request.messages);
      expectValidConversation(request.messages);
    }
  });

  it('autocompact: the history before the last exchange goes, the last exchange keeps its thinking', async () => {
    const line = (index: number) => `export const line${String(index).padStart(4, '0')} = "${'x'.repeat(60)}";`;
    const big = `${Array.from({ length: 900 }, (_, index) => line(index)).join('\n')}\n`;
    const medium = `${Array.from({ length: 150 }, (_, index) => line(index)).join('\n')}\n`;
    const repo = makeRepo({ 'big.ts': big, 'medium.ts': medium });
    const { model, session, events, result } = await runScripted({
      root: repo,
      turns: thinking([read('big.ts'), read('medium.ts'), REPORT_TURN]),
      context: createContextAssembler({
        homeDir: tempDir('orca-home-'),
        compaction: {
          contextWindow: 20_000,
          reservedOutputTokens: 0,
          autocompactBufferTokens: 0,
          snipAt: 2,
          microcompactAt: 2,
          collapseAt: 2,
        },
      }),
    });
    expect(result.reason).toBe('report');
    expect(levels(events)).toEqual(['autocompact']);
    const last = model.requests.at(-1)!;
    expect(JSON.stringify(last.messages[0])).toContain('# Hand-off summary');
    expect(JSON.stringify(last.messages)).not.toContain('Reasoning of turn 1.');
    expect(last.messages[1]!.content[0]).toEqual(
      session.messages.filter((message) => message.role === 'assistant')[1]!.content.find((block) => block.type === 'thinking'),
    );
    expect(expectThinkingKept(session.messages, last.messages).turns).toBe(1);
    for (const request of model.requests) {
      expectThinkingKept(session.messages, request.messages);
      expectValidConversation(request.messages);
    }
  });
});
