import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { HANDOFF_SECTIONS } from '../../shared/context/compaction/handoff.js';
import { createContextAssembler } from '../../shared/context/prompt/assembler.js';
import type { AgentEvent } from '../../shared/core/events/agentEvent.js';
import { type AgentResult, runSession } from '../../shared/core/loop/query.js';
import { AgentSession, type ContextAssembler } from '../../shared/core/loop/session.js';
import { AnthropicModel } from '../../shared/core/model/anthropic.js';
import { readTool } from '../../shared/tools/read.js';
import { MessagesServer, reply } from '../support/messagesServer.js';
import { tempDir } from '../support/tempDir.js';

/**
 * The agent loop on the real client against the strict stand-in answering as today's models do:
 * thinking kept and sent back with every turn, refusals, paused turns, tool input that is not
 * JSON, and a conversation that outgrows the model's window.
 */

let server: MessagesServer;

beforeEach(async () => {
  server = new MessagesServer();
  await server.start();
});

afterEach(async () => {
  await server.close();
});

// biome-ignore lint/suspicious/noExplicitAny: request bodies as the stand-in recorded them.
type Body = any;

interface Run {
  session: AgentSession;
  events: AgentEvent[];
  result: AgentResult;
}

async function run(options: { context?: ContextAssembler; files?: Record<string, string>; model?: string } = {}): Promise<Run> {
  const workspace = tempDir('orca-ws-');
  for (const [name, text] of Object.entries(options.files ?? { 'a.ts': 'export const a = 1;\n' })) {
    writeFileSync(path.join(workspace, name), text);
  }
  const session = new AgentSession({
    role: 'explore',
    model: new AnthropicModel({ apiKey: 'sk-test-key', baseURL: server.url, model: options.model ?? 'claude-sonnet-5-5', maxRetries: 0 }),
    systemPrompt: 'You are a careful engineer.',
    tools: [readTool],
    outputSchema: z.object({ summary: z.string() }),
    workspaceRoot: workspace,
    sessionDir: path.join(tempDir('orca-session-'), 'session'),
    mode: 'read-only',
    context: options.context,
  });
  const events: AgentEvent[] = [];
  const result = await runSession(session, 'Find the bug.', (event) => events.push(event));
  return { session, events, result };
}

function assistantTurns(body: Body): Body[] {
  return body.messages.filter((message: Body) => message.role === 'assistant');
}

function notices(events: AgentEvent[]): string[] {
  return events.flatMap((event) => (event.type === 'notice' ? [event.message] : []));
}

const REPORT = { summary: 'a.ts exports a = 1' };

describe('thinking through the agent loop', () => {
  it('sends every earlier assistant turn back with its signed thinking, and counts thinking tokens in usage and cost', async () => {
    server.enqueue(
      reply.thinkingToolUse('Start with a.ts.', 'Read', { file_path: 'a.ts' }, { usage: { output_tokens: 300, thinking_tokens: 200 } }),
      reply.thinkingToolUse('Now b.ts.', 'Read', { file_path: 'b.ts' }, { usage: { output_tokens: 250, thinking_tokens: 150 } }),
      reply.thinkingToolUse('Both read; report.', 'Report', REPORT, { usage: { output_tokens: 100, thinking_tokens: 50 } }),
    );
    const { result, events, session } = await run({ files: { 'a.ts': 'export const a = 1;\n', 'b.ts': 'export const b = 2;\n' } });

    expect(result).toMatchObject({ reason: 'report', report: REPORT, turns: 3 });
    expect(server.requests.map((request) => request.rejection)).toEqual([undefined, undefined, undefined]);
    // Each request after the first carries every earlier turn's thinking block, signature intact, first in its turn.
    const minted = session.messages
      .filter((message) => message.role === 'assistant')
      .map((message) => message.content.find((block) => block.type === 'thinking'));
    for (const [index, request] of server.requests.entries()) {
      const turns = assistantTurns(request.body);
      expect(turns).toHaveLength(index);
      for (const [earlier, turn] of turns.entries()) expect(turn.content[0]).toEqual(minted[earlier]);
    }
    expect(minted.map((block) => (block as { thinking: string }).thinking)).toEqual([
      'Start with a.ts.',
      'Now b.ts.',
      'Both read; report.',
    ]);
    // Written to the transcript, and counted.
    expect(events.filter((event) => event.type === 'thinking').map((event) => (event as { text: string }).text)).toEqual([
      'Start with a.ts.',
      'Now b.ts.',
      'Both read; report.',
    ]);
    expect(result.usage.thinking_tokens).toBe(400);
    expect(result.usage.output_tokens).toBe(650);
    expect(result.costUsd).toBeCloseTo((30 * 2 + 650 * 10) / 1e6, 12);
  });

  it('keeps a redacted_thinking block and sends it back unchanged', async () => {
    server.enqueue(
      reply.stream([
        { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIw' },
        { type: 'tool_use', id: 'toolu_r', name: 'Read', input: { file_path: 'a.ts' } },
      ]),
      reply.toolUse('Report', REPORT),
    );
    const { result } = await run();
    expect(result.reason).toBe('report');
    expect(server.requests[1]!.rejection).toBeUndefined();
    expect(assistantTurns(server.requests[1]!.body)[0].content[0]).toEqual({
      type: 'redacted_thinking',
      data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIw',
    });
  });
});

describe('stop reasons of today’s models', () => {
  it('ends the agent with end reason refusal, saying what the API said', async () => {
    server.enqueue(
      reply.text('I can’t help with that.', {
        stopReason: 'refusal',
        stopDetails: { category: 'cyber', explanation: 'This could enable malware.' },
      }),
    );
    const { result, events } = await run();
    expect(result.reason).toBe('refusal');
    expect(result.detail).toBe('the model declined to go on (stop reason refusal: category cyber: This could enable malware.)');
    expect(events.at(-1)).toMatchObject({ type: 'end', reason: 'refusal' });
  });

  it('continues a paused turn by sending it back as it is, with no message of its own', async () => {
    const search = { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'a.ts' } };
    server.enqueue(
      reply.stream(
        [
          { type: 'thinking', thinking: 'Search first.' },
          { type: 'raw', block: search },
          { type: 'text', text: 'Searching…' },
        ],
        {
          stopReason: 'pause_turn',
        },
      ),
      reply.thinkingToolUse('Enough.', 'Report', REPORT),
    );
    const { result, events } = await run();
    expect(result).toMatchObject({ reason: 'report', turns: 2 });
    const second = server.requests[1]!;
    expect(second.rejection).toBeUndefined();
    const last = second.body.messages.at(-1);
    expect(last.role).toBe('assistant');
    expect(last.content.map((block: Body) => block.type)).toEqual(['thinking', 'server_tool_use', 'text']);
    expect(last.content[1]).toEqual(search);
    expect(notices(events)).toContain(
      'the API sent a content block of type "server_tool_use", which orca does not run: it is kept as received and sent back with the turn',
    );
  });
});

describe('tool input that is not valid JSON', () => {
  it('answers the call with an error result naming the JSON error and the start of the text, and goes on', async () => {
    server.enqueue(
      reply.thinkingToolUse('Read it.', 'Read', null, { id: 'toolu_bad', rawJson: '{"file_path": "a.ts",, }' }),
      reply.thinkingToolUse('Again, properly.', 'Read', { file_path: 'a.ts' }),
      reply.toolUse('Report', REPORT),
    );
    const { result, session } = await run();
    expect(result.reason, `${result.detail} ${JSON.stringify(server.requests.map((r) => r.rejection))}`).toBe('report');
    const second = server.requests[1]!;
    expect(second.rejection).toBeUndefined();
    const answer = second.body.messages.at(-1).content[0];
    expect(answer).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_bad', is_error: true });
    expect(answer.content).toMatch(
      /^Read was not run: the input is not valid JSON \(.+\); the input began: \{"file_path": "a\.ts",, \}\. Send the call again with its input as one valid JSON object\.$/,
    );
    // The turn goes back with its thinking, the broken call as an empty input.
    expect(assistantTurns(second.body)[0].content.map((block: Body) => block.type)).toEqual(['thinking', 'tool_use']);
    expect(assistantTurns(second.body)[0].content[1].input).toEqual({});
    expect(session.ledger.all()[0]).toMatchObject({ id: 'toolu_bad', isError: true });
  });

  it('ends the agent with a clear reason after three in a row', async () => {
    for (let i = 0; i < 3; i += 1) server.enqueue(reply.toolUse('Read', null, { rawJson: `{"file_path": "a.ts" ${i}` }));
    const { result } = await run();
    expect(result.reason).toBe('error');
    expect(result.detail).toMatch(
      /^the model sent tool input that is not valid JSON 3 times in a row; the last: Read was not run: the input is not valid JSON/,
    );
    expect(result.turns).toBe(3);
  });
});

describe('a conversation that outgrows the model’s window', () => {
  const big = `${'const filler = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";\n'.repeat(1600)}`;
  const summary = HANDOFF_SECTIONS.map((title) => `## ${title}\nWhat happened under ${title}.`).join('\n\n');
  const assembler = () => createContextAssembler({ homeDir: tempDir('orca-home-'), gitStatusEachTurn: false });
  const tooLong = () => reply.error(400, 'invalid_request_error', 'prompt is too long: 212000 tokens > 200000 maximum');

  it('compacts once when the API says the prompt is too long, and the retried turn goes through', async () => {
    server.enqueue(
      reply.thinkingToolUse('Read the big file.', 'Read', { file_path: 'big.txt' }),
      reply.thinkingToolUse('Now a.ts.', 'Read', { file_path: 'a.ts' }),
      tooLong(),
      reply.text(summary),
      reply.toolUse('Report', REPORT),
    );
    const { result, events } = await run({ context: assembler(), files: { 'big.txt': big, 'a.ts': 'export const a = 1;\n' } });

    expect(result).toMatchObject({ reason: 'report', turns: 3 });
    const compaction = events.find((event) => event.type === 'compaction');
    expect(compaction).toMatchObject({ level: 'autocompact' });
    expect((compaction as { detail: string }).detail).toMatch(
      /^reactive \(the conversation does not fit the model's context window \(400 invalid_request_error: prompt is too long/,
    );
    expect(notices(events)).toContainEqual(expect.stringMatching(/compacted the conversation, trying the turn again$/));
    const [, , overflowed, summaryCall, retried] = server.requests;
    expect(overflowed!.body.messages).toHaveLength(5);
    expect(summaryCall!.rejection).toBeUndefined();
    expect(summaryCall!.body.tool_choice).toEqual({ type: 'none' });
    // The retried turn starts from the hand-off summary and keeps the last exchange, its thinking in place.
    expect(retried!.rejection).toBeUndefined();
    expect(JSON.stringify(retried!.body.messages[0])).toContain('# Hand-off summary');
    expect(retried!.body.messages).toHaveLength(3);
    expect(retried!.body.messages[1].content[0]).toMatchObject({ type: 'thinking', thinking: 'Now a.ts.' });
    expect(JSON.stringify(retried!.body).length).toBeLessThan(JSON.stringify(overflowed!.body).length / 2);
    // What came before that thinking changed: the request let the API set it aside instead of refusing.
    expect(retried!.dropped).toEqual([{ type: 'thinking_dropped', path: 'messages.1.content.0', reason: 'prefix_binding_mismatch' }]);
  });

  it('does the same when the model stops with model_context_window_exceeded, dropping what it had begun', async () => {
    server.enqueue(
      reply.thinkingToolUse('Read the big file.', 'Read', { file_path: 'big.txt' }),
      reply.thinkingToolUse('Now a.ts.', 'Read', { file_path: 'a.ts' }),
      reply.text('The file shows that', { stopReason: 'model_context_window_exceeded', usage: { output_tokens: 40 } }),
      reply.text(summary),
      reply.toolUse('Report', REPORT),
    );
    const { result, session, events } = await run({ context: assembler(), files: { 'big.txt': big, 'a.ts': 'export const a = 1;\n' } });
    expect(result).toMatchObject({ reason: 'report', turns: 3 });
    expect(JSON.stringify(session.messages)).not.toContain('The file shows that');
    expect(events.filter((event) => event.type === 'compaction').map((event) => (event as { detail: string }).detail)).toEqual([
      expect.stringMatching(
        /^reactive \(the model's context window filled up during the answer \(stop reason model_context_window_exceeded\)\): auto:/,
      ),
    ]);
    // The cut answer's tokens were spent all the same.
    expect(events.filter((event) => event.type === 'usage')).toHaveLength(5);
  });

  it('fails in one clear line when the conversation still does not fit after one compaction', async () => {
    server.enqueue(
      reply.thinkingToolUse('Read the big file.', 'Read', { file_path: 'big.txt' }),
      reply.thinkingToolUse('Now a.ts.', 'Read', { file_path: 'a.ts' }),
      tooLong(),
      reply.text(summary),
      tooLong(),
    );
    const { result, events } = await run({ context: assembler(), files: { 'big.txt': big, 'a.ts': 'export const a = 1;\n' } });
    expect(result.reason).toBe('error');
    expect(result.detail).toBe(
      "model call failed: the conversation does not fit the model's context window (400 invalid_request_error: prompt is too long: 212000 tokens > 200000 maximum), even after a reactive compaction of the conversation",
    );
    expect(events.filter((event) => event.type === 'compaction')).toHaveLength(1);
    expect(server.pending).toBe(0);
  });

  it('fails saying why when there is no compaction to make it fit', async () => {
    server.enqueue(tooLong());
    const { result } = await run();
    expect(result.reason).toBe('error');
    expect(result.detail).toBe(
      "model call failed: the conversation does not fit the model's context window (400 invalid_request_error: prompt is too long: 212000 tokens > 200000 maximum); this session has no compaction to make it fit",
    );
  });
});
