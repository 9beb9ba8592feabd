import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { AgentEvent } from '../../shared/core/events/agentEvent.js';
import { query } from '../../shared/core/loop/query.js';
import { AgentSession } from '../../shared/core/loop/session.js';
import { AnthropicModel, type AnthropicModelOptions, MISSING_API_KEY } from '../../shared/core/model/anthropic.js';
import type { ModelEvent, ModelRequest } from '../../shared/core/model/model.js';
import { ModelError } from '../../shared/core/model/modelError.js';
import { MessagesServer, reply } from '../support/messagesServer.js';
import { tempDir } from '../support/tempDir.js';

let server: MessagesServer;

beforeEach(async () => {
  server = new MessagesServer();
  await server.start();
});

afterEach(async () => {
  vi.unstubAllEnvs();
  await server.close();
});

function model(options: AnthropicModelOptions = {}): AnthropicModel {
  return new AnthropicModel({ apiKey: 'sk-test-key', baseURL: server.url, model: 'claude-sonnet-4-6', ...options });
}

const request: ModelRequest = {
  system: [{ text: 'You are a careful engineer.', cache: true }, { text: 'Today is a test day.' }],
  messages: [
    { role: 'user', content: [{ type: 'text', text: 'Read a.ts' }] },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: 'a.ts' } }] },
    {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '1\texport const a = 1;', cache_control: { type: 'ephemeral' } }],
    },
  ],
  tools: [
    { name: 'Read', description: 'Reads a file.', input_schema: { type: 'object', properties: { file_path: { type: 'string' } } } },
    { name: 'Report', description: 'Ends the task.', input_schema: { type: 'object', properties: { summary: { type: 'string' } } } },
  ],
  cacheTools: true,
  maxTokens: 1024,
};

async function collect(stream: AsyncIterable<ModelEvent>): Promise<ModelEvent[]> {
  const events: ModelEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** Runs the stream to its failure; fails the test when it does not throw a ModelError. */
async function failure(stream: AsyncIterable<ModelEvent>): Promise<{ events: ModelEvent[]; error: ModelError }> {
  const events: ModelEvent[] = [];
  try {
    for await (const event of stream) events.push(event);
  } catch (error) {
    if (error instanceof ModelError) return { events, error };
    throw error;
  }
  throw new Error(`expected a ModelError, the stream ended with ${JSON.stringify(events.at(-1))}`);
}

function texts(events: ModelEvent[]): string[] {
  return events.flatMap((event) => (event.type === 'text_delta' ? [event.text] : []));
}

const signal = (): AbortSignal => new AbortController().signal;

describe('AnthropicModel streaming', () => {
  it('streams text deltas, then one message_end with the stop reason, usage and its cost', async () => {
    server.enqueue(
      reply.text('Hello from the local Messages API', {
        chunks: 4,
        usage: { input_tokens: 100, output_tokens: 20, cache_read_input_tokens: 1000, cache_creation_input_tokens: 200 },
      }),
    );
    const claude = model();
    const events = await collect(claude.stream(request, signal()));

    expect(texts(events)).toHaveLength(4);
    expect(texts(events).join('')).toBe('Hello from the local Messages API');
    const end = events.at(-1);
    expect(end).toEqual({
      type: 'message_end',
      stopReason: 'end_turn',
      usage: { input_tokens: 100, output_tokens: 20, cache_read_tokens: 1000, cache_creation_tokens: 200, thinking_tokens: 0 },
    });
    expect(events.filter((event) => event.type === 'message_end')).toHaveLength(1);
    // Sonnet: $3 in, $15 out, cache write 1.25× and cache read 0.1× the input price, per million.
    const usage = end!.type === 'message_end' ? end!.usage : undefined;
    expect(claude.cost(usage!)).toBeCloseTo((100 * 3 + 20 * 15 + 200 * 3.75 + 1000 * 0.3) / 1e6, 12);
  });

  it('sends the request as the API expects: cache_control on the cached system block and the last tool, messages as given', async () => {
    server.enqueue(reply.text('ok'));
    await collect(model().stream(request, signal()));

    expect(server.requests).toHaveLength(1);
    const sent = server.requests[0]!;
    expect(sent.method).toBe('POST');
    expect(sent.path).toBe('/v1/messages');
    // This SDK sends the key as a bearer token.
    expect(sent.headers.authorization).toBe('Bearer sk-test-key');
    expect(sent.body.model).toBe('claude-sonnet-4-6');
    expect(sent.body.max_tokens).toBe(1024);
    expect(sent.body.stream).toBe(true);
    expect(sent.body.system).toEqual([
      { type: 'text', text: 'You are a careful engineer.', cache_control: { type: 'ephemeral' } },
      { type: 'text', text: 'Today is a test day.' },
    ]);
    expect(sent.body.tools[0]).not.toHaveProperty('cache_control');
    expect(sent.body.tools[1]).toEqual({ ...request.tools[1], cache_control: { type: 'ephemeral' } });
    expect(sent.body.messages).toEqual(request.messages);
  });

  it('puts no cache breakpoint on the tools when cacheTools is off', async () => {
    server.enqueue(reply.text('ok'));
    await collect(model().stream({ ...request, cacheTools: false }, signal()));
    for (const tool of server.requests[0]!.body.tools) expect(tool).not.toHaveProperty('cache_control');
  });

  it('counts null cache fields as zero tokens', async () => {
    server.enqueue(
      reply.text('ok', { usage: { input_tokens: 7, output_tokens: 3, cache_read_input_tokens: null, cache_creation_input_tokens: null } }),
    );
    const events = await collect(model().stream(request, signal()));
    expect(events.at(-1)).toMatchObject({
      usage: { input_tokens: 7, output_tokens: 3, cache_read_tokens: 0, cache_creation_tokens: 0, thinking_tokens: 0 },
    });
  });

  it('yields each tool_use once, complete, after its input JSON arrived in partial chunks', async () => {
    const input = { file_path: 'src/deeply/nested/module.ts', offset: 120, limit: 40, note: 'quotes " and \\ survive' };
    server.enqueue(
      reply.stream([
        { type: 'text', text: 'Let me look.', chunks: 2 },
        { type: 'tool_use', id: 'toolu_read', name: 'Read', input, chunks: 7 },
        { type: 'tool_use', id: 'toolu_list', name: 'TaskList', input: {}, rawJson: '' },
      ]),
    );
    const events = await collect(model().stream(request, signal()));

    expect(events.map((event) => event.type)).toEqual(['text_delta', 'text_delta', 'block', 'block', 'block', 'message_end']);
    expect(events[2]).toEqual({ type: 'block', block: { type: 'text', text: 'Let me look.' } });
    expect(events[3]).toEqual({ type: 'block', block: { type: 'tool_use', id: 'toolu_read', name: 'Read', input } });
    expect(events[4]).toEqual({ type: 'block', block: { type: 'tool_use', id: 'toolu_list', name: 'TaskList', input: {} } });
    expect(events[5]).toMatchObject({ type: 'message_end', stopReason: 'tool_use' });
  });

  it('hands a finished tool_use whose input does not parse on with the JSON error and how the text began, without retrying', async () => {
    server.enqueue(reply.toolUse('Edit', null, { id: 'toolu_bad', rawJson: '{"file_path": "a.ts", "old_string": ', chunks: 3 }));
    const events = await collect(model().stream(request, signal()));
    const block = events.find((event) => event.type === 'block');
    expect(block).toMatchObject({ type: 'block', block: { type: 'tool_use', id: 'toolu_bad', name: 'Edit', input: {} } });
    expect(block).toHaveProperty(
      'inputError',
      expect.stringMatching(/^the input is not valid JSON \(.+\); the input began: \{"file_path": "a\.ts", "old_string": $/),
    );
    expect(events.at(-1)).toMatchObject({ type: 'message_end', stopReason: 'tool_use' });
    expect(server.requests).toHaveLength(1);
  });

  it('drops a tool_use cut off by the output limit, so the loop can ask the model to go on', async () => {
    server.enqueue(
      reply.toolUse('Write', null, {
        text: 'Writing the file.',
        rawJson: '{"file_path": "a.ts", "content": "lo',
        stopReason: 'max_tokens',
      }),
    );
    const events = await collect(model().stream(request, signal()));
    expect(events.map((event) => event.type)).toEqual(['text_delta', 'block', 'message_end']);
    expect(events.at(-1)).toMatchObject({ stopReason: 'max_tokens' });
  });
});

describe('AnthropicModel retries and errors', () => {
  it('retries a 529 through the SDK and then streams the answer', async () => {
    server.enqueue(reply.error(529, 'overloaded_error', 'Overloaded'), reply.text('second time lucky'));
    const events = await collect(model().stream(request, signal()));
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.headers['x-stainless-retry-count']).toBe('1');
    expect(texts(events).join('')).toBe('second time lucky');
    // Nothing had streamed yet, so there is no partial turn to discard.
    expect(events.some((event) => event.type === 'retry')).toBe(false);
  });

  it('honours retry-after on a 429 before retrying', async () => {
    server.enqueue(
      reply.error(429, 'rate_limit_error', 'Number of request tokens has exceeded your rate limit', { 'retry-after': '2' }),
      reply.text('ok'),
    );
    const events = await collect(model().stream(request, signal()));
    expect(server.requests).toHaveLength(2);
    expect(texts(events).join('')).toBe('ok');
    // A lower bound the client's own wait guarantees: a slow machine only makes the gap longer.
    // Without retry-after the SDK's first backoff is at most 500 ms.
    const gap = server.requests[1]!.receivedAt - server.requests[0]!.endedAt!;
    expect(gap).toBeGreaterThanOrEqual(1_900);
  });

  it('gives up on a 529 that persists, saying how many retries it made', async () => {
    server.enqueue(reply.error(529, 'overloaded_error', 'Overloaded'), reply.error(529, 'overloaded_error', 'Overloaded'));
    const { error } = await failure(model({ maxRetries: 1 }).stream(request, signal()));
    expect(server.requests).toHaveLength(2);
    expect(error.kind).toBe('overloaded');
    expect(error.status).toBe(529);
    expect(error.message).toBe('the API is overloaded (529 overloaded_error: Overloaded) after 1 retry');
  });

  it('does not retry a 400 and reports the API message on one line', async () => {
    server.enqueue(reply.error(400, 'invalid_request_error', 'max_tokens: 999999 > 64000,\nwhich is the maximum allowed'));
    const { events, error } = await failure(model().stream(request, signal()));
    expect(server.requests).toHaveLength(1);
    expect(events).toEqual([]);
    expect(error.kind).toBe('bad_request');
    expect(error.status).toBe(400);
    expect(error.message).toBe(
      'the API rejected the request (400 invalid_request_error: max_tokens: 999999 > 64000, which is the maximum allowed)',
    );
  });

  it.each([
    [401, 'authentication_error', 'invalid x-api-key'],
    [403, 'permission_error', 'Your API key does not have permission to use the specified resource.'],
  ])('turns a %i into an auth error without retrying', async (status, type, message) => {
    server.enqueue(reply.error(status, type, message));
    const { error } = await failure(model().stream(request, signal()));
    expect(server.requests).toHaveLength(1);
    expect(error.kind).toBe('auth');
    expect(error.message).toMatch(/^the API key was refused/);
    expect(error.message).toContain(message);
    expect(error.message).not.toContain('\n');
  });

  it('names the model on a 404', async () => {
    server.enqueue(reply.error(404, 'not_found_error', 'model: claude-nonexistent-9'));
    const { error } = await failure(model({ model: 'claude-nonexistent-9' }).stream(request, signal()));
    expect(server.requests).toHaveLength(1);
    expect(error.kind).toBe('not_found');
    expect(error.message).toMatch(/^model "claude-nonexistent-9" was not found .*: check ORCA_MODEL or --model$/);
  });

  it.each([
    [
      400,
      'invalid_request_error',
      'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.',
    ],
    [402, 'billing_error', 'Payment required.'],
  ])('turns a %i billing failure into a spend_limit error without retrying', async (status, type, message) => {
    server.enqueue(reply.error(status, type, message));
    const { error } = await failure(model().stream(request, signal()));
    expect(server.requests).toHaveLength(1);
    expect(error.kind).toBe('spend_limit');
    expect(error.message).toContain(message);
  });

  it('reports an unreachable API as a network error naming the address', async () => {
    const closed = new MessagesServer();
    const url = await closed.start();
    await closed.close();
    const { error } = await failure(model({ baseURL: url, maxRetries: 1 }).stream(request, signal()));
    expect(error.kind).toBe('network');
    expect(error.message).toContain(`could not reach the API at ${url} after 1 retry`);
  });
});

describe('AnthropicModel failures after the stream started', () => {
  it('retries a stream cut halfway, yielding a retry event before the fresh answer', async () => {
    // message_start, content_block_start, ping, then two of the four deltas: cut.
    server.enqueue(reply.text('one two six ten ', { chunks: 4, cutAfter: 5 }), reply.text('a fresh answer'));
    const events = await collect(model().stream(request, signal()));

    expect(server.requests).toHaveLength(2);
    expect(await server.requests[0]!.settled).toBe('cut');
    const retryAt = events.findIndex((event) => event.type === 'retry');
    expect(texts(events.slice(0, retryAt)).join('')).toBe('one two ');
    expect(events[retryAt]).toMatchObject({ type: 'retry', attempt: 1 });
    expect(events[retryAt]!.type === 'retry' && events[retryAt]!.reason).toMatch(/^the response stream broke off/);
    expect(texts(events.slice(retryAt)).join('')).toBe('a fresh answer');
    expect(events.at(-1)).toMatchObject({ type: 'message_end', stopReason: 'end_turn' });
  });

  it('retries after an overloaded_error event midway', async () => {
    server.enqueue(
      reply.text('partial answer', { chunks: 2, errorAfter: { events: 4, type: 'overloaded_error', message: 'Overloaded' } }),
      reply.text('whole answer'),
    );
    const events = await collect(model().stream(request, signal()));
    expect(server.requests).toHaveLength(2);
    const retry = events.find((event) => event.type === 'retry');
    expect(retry).toEqual({ type: 'retry', attempt: 1, reason: 'the API sent overloaded_error midway (Overloaded)' });
    expect(texts(events).join('')).toBe('partialwhole answer');
  });

  it('does not retry an error event that waiting cannot fix', async () => {
    server.enqueue(
      reply.text('partial', { errorAfter: { events: 3, type: 'invalid_request_error', message: 'text content blocks must be non-empty' } }),
    );
    const { events, error } = await failure(model().stream(request, signal()));
    expect(server.requests).toHaveLength(1);
    expect(events.some((event) => event.type === 'retry')).toBe(false);
    expect(error.kind).toBe('bad_request');
    expect(error.message).toBe('the API rejected the request (invalid_request_error: text content blocks must be non-empty)');
  });

  it('retries a stalled stream, closes each stalled connection, and fails clearly after the limit', async () => {
    server.enqueue(
      reply.text('never finished', { stallAfter: 4 }),
      reply.text('never finished', { stallAfter: 4 }),
      reply.text('never finished', { stallAfter: 4 }),
    );
    const { events, error } = await failure(model({ idleTimeoutMs: 300, maxRetries: 2 }).stream(request, signal()));

    expect(server.requests).toHaveLength(3);
    for (const sent of server.requests) expect(await sent.settled).toBe('client_closed');
    expect(events.filter((event) => event.type === 'retry').map((event) => event.type === 'retry' && event.attempt)).toEqual([1, 2]);
    expect(error.kind).toBe('stream');
    expect(error.message).toBe('the response stream went silent for 300 ms after 2 retries');
  });
});

describe('AnthropicModel aborts', () => {
  it('ends the agent loop with an aborted end event and closes the HTTP connection mid-stream', async () => {
    server.enqueue(reply.text('a long answer that keeps on streaming for a good while', { chunks: 40, eventDelayMs: 50 }));
    const session = new AgentSession({
      role: 'worker',
      model: model(),
      systemPrompt: 'You are a test agent.',
      tools: [],
      outputSchema: z.object({ summary: z.string() }),
      workspaceRoot: tempDir(),
      sessionDir: path.join(tempDir(), 'session'),
      mode: 'read-only',
    });

    const events: AgentEvent[] = [];
    for await (const event of query(session, 'Say something long.')) {
      events.push(event);
      if (event.type === 'text_delta' && !session.signal.aborted) session.abort('user');
    }

    expect(events.at(-1)).toMatchObject({ type: 'end', reason: 'aborted' });
    expect(await server.requests[0]!.settled).toBe('client_closed');
    expect(server.requests).toHaveLength(1);
    // The partial answer never reaches the history.
    expect(session.messages.filter((message) => message.role === 'assistant')).toEqual([]);
    // The loop's request carried the cache breakpoints: the static system prompt and the last tool.
    const sent = server.requests[0]!.body;
    expect(sent.system).toEqual([{ type: 'text', text: 'You are a test agent.', cache_control: { type: 'ephemeral' } }]);
    expect(sent.tools.at(-1)).toMatchObject({ name: 'Report', cache_control: { type: 'ephemeral' } });
  });

  it('stops waiting out a retry-after when aborted', async () => {
    server.enqueue(reply.error(429, 'rate_limit_error', 'slow down', { 'retry-after': '60' }));
    const controller = new AbortController();
    const pending = failure(model().stream(request, controller.signal));
    await vi.waitFor(() => expect(server.requests[0]?.outcome).toBe('completed'));
    controller.abort();
    const { error } = await pending;
    expect(error.kind).toBe('aborted');
    expect(server.requests).toHaveLength(1);
  });

  it('sends nothing when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const { error } = await failure(model().stream(request, controller.signal));
    expect(error.kind).toBe('aborted');
    expect(server.requests).toHaveLength(0);
  });
});

describe('AnthropicModel configuration', () => {
  it('takes the key, base URL and model from ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL and ORCA_MODEL', async () => {
    vi.stubEnv('ANTHROPIC_API_KEY', 'sk-from-env');
    vi.stubEnv('ANTHROPIC_BASE_URL', `${server.url}/gateway`);
    vi.stubEnv('ORCA_MODEL', 'claude-haiku-4-5');
    server.enqueue(reply.text('ok', { usage: { input_tokens: 1_000_000, output_tokens: 0 } }));
    const claude = new AnthropicModel();
    const events = await collect(claude.stream(request, signal()));

    expect(claude.id).toBe('claude-haiku-4-5');
    const sent = server.requests[0]!;
    expect(sent.path).toBe('/gateway/v1/messages');
    expect(sent.body.model).toBe('claude-haiku-4-5');
    expect(sent.headers.authorization).toBe('Bearer sk-from-env');
    // Haiku 4.5 input is $1 per million tokens.
    const end = events.at(-1);
    expect(end?.type === 'message_end' && claude.cost(end.usage)).toBeCloseTo(1, 9);
  });

  it('refuses to start without an API key, in one line that says what to do', () => {
    vi.stubEnv('ANTHROPIC_API_KEY', '');
    expect(() => new AnthropicModel({ baseURL: server.url })).toThrowError(new ModelError('auth', MISSING_API_KEY));
    expect(MISSING_API_KEY).toBe('ANTHROPIC_API_KEY is not set: export it, or pass --script FILE to run without an LLM');
  });

  it('for an external agent’s job, is made without a key and fails its first call, sending nothing', async () => {
    vi.stubEnv('ANTHROPIC_API_KEY', '');
    const model = new AnthropicModel({ baseURL: server.url, keyAtFirstCall: true });
    const events = model.stream(request, new AbortController().signal);
    await expect(events.next()).rejects.toThrowError(new ModelError('auth', MISSING_API_KEY));
    expect(server.requests).toEqual([]);
  });
});
