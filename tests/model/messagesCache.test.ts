import { afterEach, describe, expect, it } from 'vitest';
import { AnthropicModel } from '../../shared/core/model/anthropic.js';
import type { ModelEvent, ModelRequest } from '../../shared/core/model/model.js';
import type { Usage } from '../../shared/core/model/usage.js';
import { MessagesServer, reply } from '../support/messagesServer.js';

/**
 * The stand-in's prompt cache (messagesCache.ts), through the real SDK: what a request writes,
 * what a later one reads, and that nothing is readable before the response that wrote it started.
 */

let server: MessagesServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function open(options: { cache?: boolean } = { cache: true }): Promise<MessagesServer> {
  server = new MessagesServer(options);
  await server.start();
  return server;
}

function model(): AnthropicModel {
  return new AnthropicModel({ apiKey: 'sk-test-key', baseURL: server!.url, model: 'claude-sonnet-4-6', maxRetries: 0 });
}

const SYSTEM = 'You are a careful engineer. '.repeat(40);
const TOOLS = [
  { name: 'Read', description: 'Reads a file.', input_schema: { type: 'object', properties: { file_path: { type: 'string' } } } },
  { name: 'Report', description: 'Ends the task.', input_schema: { type: 'object', properties: { summary: { type: 'string' } } } },
];

function request(question: string, extra: ModelRequest['messages'] = []): ModelRequest {
  return {
    system: [{ text: SYSTEM, cache: true }, { text: `Today: ${question.length}` }],
    messages: [{ role: 'user', content: [{ type: 'text', text: question }] }, ...extra],
    tools: TOOLS,
    cacheTools: true,
    maxTokens: 1024,
  };
}

async function usageOf(stream: AsyncIterable<ModelEvent>): Promise<Usage> {
  let usage: Usage | undefined;
  for await (const event of stream) if (event.type === 'message_end') usage = event.usage;
  if (!usage) throw new Error('no message_end');
  return usage;
}

/** The static prefix's estimate as the stand-in counts it: each tool's and the cached system block's JSON, four characters a token. */
function staticPrefixTokens(): number {
  return [...TOOLS, { type: 'text', text: SYSTEM }].reduce((sum, block) => sum + Math.ceil(JSON.stringify(block).length / 4), 0);
}

describe('the stand-in’s prompt cache', () => {
  it('has the first request write the prefix up to its last breakpoint and a later one read it', async () => {
    await open();
    server!.enqueue(reply.text('one'), reply.text('two'));
    const first = await usageOf(model().stream(request('What does a.ts do?'), new AbortController().signal));
    const second = await usageOf(model().stream(request('And b.ts?'), new AbortController().signal));

    // The last breakpoint is the system prompt's: the tools and that block are the prefix.
    expect(first.cache_creation_tokens).toBe(staticPrefixTokens());
    expect(first.cache_read_tokens).toBe(0);
    expect(second.cache_read_tokens).toBe(staticPrefixTokens());
    expect(second.cache_creation_tokens).toBe(0);
    // What follows the breakpoint (the dynamic system block, the question) is plain input.
    expect(second.input_tokens).toBeGreaterThan(0);
    expect(server!.requests.map((r) => r.cache)).toEqual([
      { input_tokens: first.input_tokens, cache_read_input_tokens: 0, cache_creation_input_tokens: first.cache_creation_tokens },
      { input_tokens: second.input_tokens, cache_read_input_tokens: second.cache_read_tokens, cache_creation_input_tokens: 0 },
    ]);
  });

  it('reads a conversation’s earlier turn through the lookback and writes only what the new turn adds', async () => {
    await open();
    server!.enqueue(reply.text('one'), reply.text('two'));
    const question = 'What does a.ts do?';
    const marked = (text: string) => ({ type: 'text' as const, text, cache_control: { type: 'ephemeral' as const } });
    const turn1: ModelRequest = { ...request(question), messages: [{ role: 'user', content: [marked(question)] }] };
    const first = await usageOf(model().stream(turn1, new AbortController().signal));
    const turn2: ModelRequest = {
      ...request(question),
      messages: [
        { role: 'user', content: [{ type: 'text', text: question }] },
        { role: 'assistant', content: [{ type: 'text', text: 'one' }] },
        { role: 'user', content: [marked('Say more.')] },
      ],
    };
    const second = await usageOf(model().stream(turn2, new AbortController().signal));

    expect(second.cache_read_tokens).toBe(first.cache_creation_tokens);
    // The assistant's answer and the new question, four characters a token of their JSON.
    const added = [
      { type: 'text', text: 'one' },
      { type: 'text', text: 'Say more.' },
    ].reduce((sum, block) => sum + Math.ceil(JSON.stringify(block).length / 4), 0);
    expect(second.cache_creation_tokens).toBe(added);
    expect(second.input_tokens).toBe(0);
  });

  it('makes a prefix readable only once the response that wrote it has started', async () => {
    await open();
    // The first response sends its headers and then nothing: message_start never goes out.
    server!.enqueue(reply.text('held', { stallAfter: 0 }), reply.text('two'), reply.text('three'));
    const held = new AbortController();
    const leader = usageOf(model().stream(request('What does a.ts do?'), held.signal)).catch((error: unknown) => error);
    await expect.poll(() => server!.requests.length).toBe(1);
    const during = await usageOf(model().stream(request('And b.ts?'), new AbortController().signal));
    held.abort();
    await leader;
    const after = await usageOf(model().stream(request('And c.ts?'), new AbortController().signal));

    expect(server!.requests[0]!.startedSeq).toBeUndefined();
    expect(during.cache_creation_tokens).toBe(staticPrefixTokens());
    expect(during.cache_read_tokens).toBe(0);
    // The second request's response started: what it wrote is read by the third.
    expect(after.cache_read_tokens).toBe(staticPrefixTokens());
    expect(after.cache_creation_tokens).toBe(0);
  });

  it('records arrivals and response starts in one sequence', async () => {
    await open();
    server!.enqueue(reply.text('one'), reply.text('two'));
    await usageOf(model().stream(request('a'), new AbortController().signal));
    await usageOf(model().stream(request('b'), new AbortController().signal));
    const [a, b] = server!.requests;
    expect(a!.receivedSeq).toBeLessThan(a!.startedSeq!);
    expect(a!.startedSeq).toBeLessThan(b!.receivedSeq);
    expect(b!.receivedSeq).toBeLessThan(b!.startedSeq!);
  });

  it('is off unless asked for: usage is then the behaviour’s own', async () => {
    await open({});
    server!.enqueue(reply.text('one'), reply.text('two', { usage: { cache_read_input_tokens: 7 } }));
    const first = await usageOf(model().stream(request('a'), new AbortController().signal));
    const second = await usageOf(model().stream(request('a'), new AbortController().signal));
    expect([first.cache_creation_tokens, first.cache_read_tokens, second.cache_read_tokens]).toEqual([0, 0, 7]);
    expect(server!.requests[0]!.cache).toBeUndefined();
  });

  it('lets a behaviour’s own usage figures win over the cache’s', async () => {
    await open();
    server!.enqueue(reply.text('one', { usage: { cache_creation_input_tokens: 3 } }));
    const usage = await usageOf(model().stream(request('a'), new AbortController().signal));
    expect(usage.cache_creation_tokens).toBe(3);
    expect(usage.cache_read_tokens).toBe(0);
  });
});
