import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BINDING_BETA } from '../support/messagesApiRules.js';
import { MessagesServer, reply } from '../support/messagesServer.js';

/**
 * The strict stand-in itself: a test of orca against it is only as good as its refusals. Each
 * rule is shown refusing what the API refuses, with the API's message, and letting through what
 * the API takes; a refused request takes no queued behaviour.
 */

let server: MessagesServer;

beforeEach(async () => {
  server = new MessagesServer();
  await server.start();
});

afterEach(async () => {
  await server.close();
});

// biome-ignore lint/suspicious/noExplicitAny: request bodies are built freely here, as a client would.
type Body = Record<string, any>;

async function post(body: Body, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  const response = await fetch(`${server.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'sk-test', ...headers },
    body: JSON.stringify({ stream: true, ...body }),
  });
  return { status: response.status, text: await response.text() };
}

/** The blocks of the answer a streamed response carried (thinking with its signature), as a client keeps them. */
function answerOf(sse: string): Body[] {
  const blocks: Body[] = [];
  const json: Record<number, string> = {};
  for (const line of sse.split('\n')) {
    if (!line.startsWith('data: ')) continue;
    const event = JSON.parse(line.slice(6));
    if (event.type === 'content_block_start') blocks[event.index] = { ...event.content_block };
    if (event.type === 'content_block_delta') {
      const block = blocks[event.index]!;
      if (event.delta.type === 'text_delta') block.text += event.delta.text;
      if (event.delta.type === 'thinking_delta') block.thinking += event.delta.thinking;
      if (event.delta.type === 'signature_delta') block.signature = event.delta.signature;
      if (event.delta.type === 'input_json_delta') json[event.index] = (json[event.index] ?? '') + event.delta.partial_json;
    }
  }
  for (const [index, text] of Object.entries(json)) blocks[Number(index)]!.input = JSON.parse(text);
  return blocks;
}

const user = (text: string) => ({ role: 'user', content: [{ type: 'text', text }] });
const SONNET = { model: 'claude-sonnet-5-5', max_tokens: 2048 };

/** One tool-use turn of a thinking Sonnet 5.5, and the request that continues it. */
async function thinkingTurn(): Promise<{ first: Body; answer: Body[]; next: (assistant: Body[], extra?: Body) => Body }> {
  server.enqueue(reply.thinkingToolUse('Look at a.ts.', 'Read', { file_path: 'a.ts' }, { id: 'toolu_a' }));
  const tools = [{ name: 'Read', description: 'Reads a file.', input_schema: { type: 'object' } }];
  const first = { ...SONNET, tools, thinking: { type: 'adaptive', display: 'summarized' }, messages: [user('Find the bug.')] };
  const sent = await post(first);
  expect(sent.status).toBe(200);
  const answer = answerOf(sent.text);
  const next = (assistant: Body[], extra: Body = {}) => ({
    ...first,
    ...extra,
    messages: [
      user('Find the bug.'),
      { role: 'assistant', content: assistant },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_a', content: 'export const a = 1;' }] },
    ],
  });
  return { first, answer, next };
}

describe('the strict Messages API stand-in', () => {
  it('signs its thinking blocks and takes them back unchanged', async () => {
    const { answer, next } = await thinkingTurn();
    expect(answer[0]).toMatchObject({ type: 'thinking', thinking: 'Look at a.ts.' });
    expect(answer[0]!.signature.length).toBeGreaterThan(20);
    server.enqueue(reply.text('It is fine.'));
    expect((await post(next(answer))).status).toBe(200);
    expect(server.pending).toBe(0);
  });

  it('refuses an assistant turn of a tool loop sent back without its thinking block', async () => {
    const { answer, next } = await thinkingTurn();
    server.enqueue(reply.text('never sent'));
    const sent = await post(next(answer.filter((block) => block.type !== 'thinking')));
    expect(sent.status).toBe(400);
    expect(JSON.parse(sent.text).error).toMatchObject({ type: 'invalid_request_error' });
    expect(server.requests.at(-1)!.rejection).toMatch(
      /^messages\.1\.content\.0: Expected `thinking` or `redacted_thinking`, but found `tool_use`\. When `thinking` is enabled, a final `assistant` message must start with a thinking block/,
    );
    // A refused request takes no behaviour.
    expect(server.pending).toBe(1);
  });

  it('refuses a thinking block whose text or signature changed', async () => {
    const { answer, next } = await thinkingTurn();
    const edited = [{ ...answer[0], thinking: 'Look at b.ts.' }, answer[1]!];
    const sent = await post(next(edited));
    expect(sent.status).toBe(400);
    expect(server.requests.at(-1)!.rejection).toBe('messages.1.content.0: Invalid `signature` in `thinking` block');
  });

  it('refuses a thinking block whose earlier conversation changed, or drops it when the request asks, with its beta header', async () => {
    const { answer, next } = await thinkingTurn();
    const changed = (extra: Body) => {
      const body = next(answer, extra);
      body.messages[0] = user('Find the bug, quickly.');
      return body;
    };
    expect((await post(changed({}))).status).toBe(400);
    expect(server.requests.at(-1)!.rejection).toMatch(/The block is bound to a different conversation\. Remove the block, or set/);

    const dropping = { thinking: { type: 'adaptive', block_binding: { prefix_mismatch_behavior: 'drop_block' } } };
    expect((await post(changed(dropping))).status).toBe(400);
    expect(server.requests.at(-1)!.rejection).toMatch(/block_binding: Extra inputs are not permitted \(it needs the anthropic-beta header/);

    server.enqueue(reply.text('ok'));
    const sent = await post(changed(dropping), { 'anthropic-beta': BINDING_BETA });
    expect(sent.status).toBe(200);
    expect(server.requests.at(-1)!.dropped).toEqual([
      { type: 'thinking_dropped', path: 'messages.1.content.0', reason: 'prefix_binding_mismatch' },
    ]);
    expect(sent.text).toContain('"input_transformations":[{"type":"thinking_dropped"');
  });

  it('ignores cache_control markers when it compares what came before a thinking block', async () => {
    const { answer, next } = await thinkingTurn();
    const body = next(answer);
    body.messages[0].content[0].cache_control = { type: 'ephemeral' };
    server.enqueue(reply.text('ok'));
    expect((await post(body)).status).toBe(200);
  });

  it('refuses a tool_use without a tool_result right after it, and a tool_result that answers nothing', async () => {
    const use = { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_x', name: 'Read', input: {} }] };
    const tools = [{ name: 'Read', description: 'Reads.', input_schema: { type: 'object' } }];
    const unanswered = await post({ ...SONNET, tools, messages: [user('go'), use, user('and?')] });
    expect(unanswered.status).toBe(400);
    expect(server.requests.at(-1)!.rejection).toBe(
      'messages.2: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_x. Each `tool_use` block must have a corresponding `tool_result` block in the next message.',
    );
    const stray = await post({
      ...SONNET,
      tools,
      messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_y', content: 'x' }] }],
    });
    expect(stray.status).toBe(400);
    expect(server.requests.at(-1)!.rejection).toMatch(
      /^messages\.0\.content\.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_y\./,
    );
  });

  it('refuses tool results after other content, and tool blocks in a request that defines no tools', async () => {
    const use = { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_z', name: 'Read', input: {} }] };
    const late = {
      role: 'user',
      content: [
        { type: 'text', text: 'note' },
        { type: 'tool_result', tool_use_id: 'toolu_z', content: 'x' },
      ],
    };
    const tools = [{ name: 'Read', description: 'Reads.', input_schema: { type: 'object' } }];
    expect((await post({ ...SONNET, tools, messages: [user('go'), use, late] })).status).toBe(400);
    expect(server.requests.at(-1)!.rejection).toBe(
      'messages.2: Did not find 1 `tool_result` block(s) at the beginning of this message. Messages following `tool_use` blocks must begin with a matching number of `tool_result` blocks.',
    );
    const answered = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_z', content: 'x' }] };
    expect((await post({ ...SONNET, messages: [user('go'), use, answered] })).status).toBe(400);
    expect(server.requests.at(-1)!.rejection).toBe('Requests which include `tool_use` or `tool_result` blocks must define tools.');
    server.enqueue(reply.text('ok'));
    expect((await post({ ...SONNET, tools, tool_choice: { type: 'none' }, messages: [user('go'), use, answered] })).status).toBe(200);
  });

  it('refuses more than four cache_control breakpoints, and takes four', async () => {
    const marked = (n: number) => ({
      ...SONNET,
      system: Array.from({ length: n }, (_, index) => ({ type: 'text', text: `part ${index}`, cache_control: { type: 'ephemeral' } })),
      messages: [user('go')],
    });
    expect((await post(marked(5))).status).toBe(400);
    expect(server.requests.at(-1)!.rejection).toBe('A maximum of 4 blocks with cache_control may be provided. Found 5.');
    server.enqueue(reply.text('ok'));
    expect((await post(marked(4))).status).toBe(200);
  });

  it('refuses a thinking budget at or above max_tokens, or under 1024, and a thinking type the model does not take', async () => {
    const budget = (budget_tokens: number, max_tokens: number) => ({
      model: 'claude-sonnet-4-6',
      max_tokens,
      thinking: { type: 'enabled', budget_tokens },
      messages: [user('go')],
    });
    expect((await post(budget(4000, 4000))).status).toBe(400);
    expect(server.requests.at(-1)!.rejection).toMatch(/^`max_tokens` must be greater than `thinking\.budget_tokens`/);
    expect((await post(budget(512, 4000))).status).toBe(400);
    expect(server.requests.at(-1)!.rejection).toBe('thinking.enabled.budget_tokens: Input should be greater than or equal to 1024');
    expect((await post({ ...SONNET, thinking: { type: 'enabled', budget_tokens: 2000 }, messages: [user('go')] })).status).toBe(400);
    expect(server.requests.at(-1)!.rejection).toMatch(/^"thinking\.type\.enabled" is not supported for this model\./);
    expect((await post({ ...SONNET, thinking: { type: 'disabled' }, messages: [user('go')] })).status).toBe(400);
    server.enqueue(reply.text('ok'));
    expect((await post(budget(2000, 4000))).status).toBe(200);
  });

  it('refuses an assistant turn at the end on a model without prefill, but takes back a turn it paused', async () => {
    const prefill = await post({
      ...SONNET,
      messages: [user('go'), { role: 'assistant', content: [{ type: 'text', text: 'The answer is' }] }],
    });
    expect(prefill.status).toBe(400);
    expect(server.requests.at(-1)!.rejection).toBe(
      'This model does not support assistant message prefill. The conversation must end with a user message.',
    );
    server.enqueue(
      reply.stream(
        [
          { type: 'thinking', thinking: 'Long search.' },
          { type: 'text', text: 'Searching…' },
        ],
        { stopReason: 'pause_turn' },
      ),
    );
    const paused = answerOf((await post({ ...SONNET, messages: [user('go')] })).text);
    server.enqueue(reply.text('Found it.'));
    expect((await post({ ...SONNET, messages: [user('go'), { role: 'assistant', content: paused }] })).status).toBe(200);
  });

  it('refuses empty text blocks, and a prompt larger than the context window it is given', async () => {
    expect((await post({ ...SONNET, messages: [user('')] })).status).toBe(400);
    expect(server.requests.at(-1)!.rejection).toBe('messages.0.content.0: text content blocks must be non-empty');
    await server.close();
    server = new MessagesServer({ contextWindowTokens: 50 });
    await server.start();
    expect((await post({ ...SONNET, messages: [user('x'.repeat(400))] })).status).toBe(400);
    expect(server.requests.at(-1)!.rejection).toMatch(/^prompt is too long: \d+ tokens > 50 maximum$/);
  });

  it('omits thinking text on a model that omits it unless the request asks for it, still signing the block', async () => {
    server.enqueue(reply.thinkingToolUse('Secret reasoning.', 'Read', { file_path: 'a.ts' }));
    const answer = answerOf((await post({ ...SONNET, messages: [user('go')] })).text);
    expect(answer[0]).toMatchObject({ type: 'thinking', thinking: '' });
    expect(answer[0]!.signature.length).toBeGreaterThan(20);
  });

  it('refuses to play thinking blocks for a request that does not think', async () => {
    server.enqueue(reply.thinkingToolUse('x', 'Read', {}));
    const sent = await post({ model: 'claude-haiku-4-5', max_tokens: 1000, messages: [user('go')] });
    expect(sent.status).toBe(400);
    expect(sent.text).toContain('does not think');
  });
});
