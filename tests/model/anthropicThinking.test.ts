import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AnthropicModel, type AnthropicModelOptions } from '../../shared/core/model/anthropic.js';
import type { ModelEvent, ModelRequest } from '../../shared/core/model/model.js';
import { THINKING_BINDING_BETA } from '../../shared/core/model/modelCapabilities.js';
import { ModelError } from '../../shared/core/model/modelError.js';
import { MessagesServer, reply } from '../support/messagesServer.js';

/**
 * The real client against the strict stand-in, for what today's models send and expect: thinking
 * (signed, redacted, its text omitted unless asked), effort, aliases, stop reasons and blocks the
 * SDK may not know, thinking tokens, and the per-family rules on thinking settings.
 */

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
  return new AnthropicModel({ apiKey: 'sk-test-key', baseURL: server.url, model: 'claude-sonnet-5-5', ...options });
}

const request: ModelRequest = {
  system: [{ text: 'You are a careful engineer.', cache: true }],
  messages: [{ role: 'user', content: [{ type: 'text', text: 'Read a.ts' }] }],
  tools: [{ name: 'Read', description: 'Reads a file.', input_schema: { type: 'object', properties: { file_path: { type: 'string' } } } }],
  cacheTools: true,
  maxTokens: 4096,
};

async function collect(stream: AsyncIterable<ModelEvent>): Promise<ModelEvent[]> {
  const events: ModelEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

function blocks(events: ModelEvent[]) {
  return events.flatMap((event) => (event.type === 'block' ? [event.block] : []));
}

function notices(events: ModelEvent[]): string[] {
  return events.flatMap((event) => (event.type === 'notice' ? [event.message] : []));
}

const signal = (): AbortSignal => new AbortController().signal;

describe('thinking on the real client', () => {
  it('asks a Sonnet 5.5 for adaptive thinking with its text, and keeps each block exactly as signed, in order', async () => {
    server.enqueue(
      reply.stream(
        [
          { type: 'thinking', thinking: 'The bug is probably in a.ts; read it first.', chunks: 3 },
          { type: 'text', text: 'Reading a.ts.' },
          { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: 'a.ts' } },
        ],
        { usage: { output_tokens: 120, thinking_tokens: 80 } },
      ),
    );
    const events = await collect(model().stream(request, signal()));

    const sent = server.requests[0]!;
    expect(sent.rejection).toBeUndefined();
    expect(sent.body.thinking).toEqual({
      type: 'adaptive',
      display: 'summarized',
      block_binding: { prefix_mismatch_behavior: 'drop_block' },
    });
    expect(sent.headers['anthropic-beta']).toBe(THINKING_BINDING_BETA);
    expect(sent.body).not.toHaveProperty('output_config');
    expect(sent.body.max_tokens).toBe(4096);

    const [thinking, text, use] = blocks(events);
    expect(thinking).toMatchObject({ type: 'thinking', thinking: 'The bug is probably in a.ts; read it first.' });
    expect((thinking as { signature: string }).signature).toMatch(/^[A-Za-z0-9+/=]{40,}$/);
    expect(text).toEqual({ type: 'text', text: 'Reading a.ts.' });
    expect(use).toEqual({ type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: 'a.ts' } });
    expect(events.at(-1)).toMatchObject({
      type: 'message_end',
      stopReason: 'tool_use',
      usage: { output_tokens: 120, thinking_tokens: 80 },
    });
  });

  it('keeps a redacted_thinking block and a block type the SDK does not know, as received, and says so for the unknown one', async () => {
    const future = { type: 'future_insight', id: 'fi_1', payload: { note: 'kept' } };
    server.enqueue(
      reply.stream([
        { type: 'redacted_thinking', data: 'EqQBCgIYAhIM…opaque' },
        { type: 'raw', block: future },
        { type: 'text', text: 'Done.' },
      ]),
    );
    const events = await collect(model().stream(request, signal()));
    expect(blocks(events)).toEqual([
      { type: 'redacted_thinking', data: 'EqQBCgIYAhIM…opaque' },
      { type: 'api_block', block: future },
      { type: 'text', text: 'Done.' },
    ]);
    expect(notices(events)).toEqual([
      'the API sent a content block of type "future_insight", which orca does not run: it is kept as received and sent back with the turn',
    ]);
  });

  it('handles a stop reason it does not know as the nearest known one, and says so', async () => {
    server.enqueue(reply.text('Hm.', { stopReason: 'thinking_budget_spent' }));
    const events = await collect(model().stream(request, signal()));
    expect(events.at(-1)).toMatchObject({ type: 'message_end', stopReason: 'end_turn' });
    expect(notices(events)).toEqual(['the API sent stop reason "thinking_budget_spent", which orca does not know: handled as end_turn']);
  });

  it('passes a refusal on with its category and explanation', async () => {
    server.enqueue(
      reply.text('I can’t help with that.', {
        stopReason: 'refusal',
        stopDetails: { category: 'cyber', explanation: 'The request could enable malware development.' },
      }),
    );
    const events = await collect(model().stream(request, signal()));
    expect(events.at(-1)).toMatchObject({
      type: 'message_end',
      stopReason: 'refusal',
      detail: 'category cyber: The request could enable malware development.',
    });
  });

  it('sends effort as output_config.effort, and a fixed budget with the room for the answer on top of it', async () => {
    server.enqueue(reply.text('ok'), reply.text('ok'));
    await collect(model({ effort: 'max' }).stream(request, signal()));
    expect(server.requests[0]!.body.output_config).toEqual({ effort: 'max' });

    await collect(model({ model: 'claude-sonnet-4-6', thinking: { type: 'enabled', budgetTokens: 8000 } }).stream(request, signal()));
    const sent = server.requests[1]!;
    expect(sent.rejection).toBeUndefined();
    expect(sent.body.thinking).toEqual({ type: 'enabled', budget_tokens: 8000 });
    expect(sent.body.max_tokens).toBe(4096 + 8000);
    expect(sent.headers['anthropic-beta']).toBeUndefined();
  });

  it('turns thinking off the way each family takes it, and sends nothing a model would refuse', async () => {
    server.enqueue(reply.text('ok'), reply.text('ok'), reply.text('ok'));
    await collect(model({ thinking: { type: 'off' } }).stream(request, signal()));
    expect(server.requests[0]!.body.thinking).toEqual({ type: 'between_tools' });
    await collect(model({ model: 'claude-sonnet-4-6', thinking: { type: 'off' } }).stream(request, signal()));
    expect(server.requests[1]!.body.thinking).toEqual({ type: 'disabled' });
    // A model that only thinks on a budget gets no thinking field unless asked.
    await collect(model({ model: 'claude-haiku-4-5' }).stream(request, signal()));
    expect(server.requests[2]!.body).not.toHaveProperty('thinking');

    const refused = (options: AnthropicModelOptions) => {
      try {
        model(options);
      } catch (error) {
        if (error instanceof ModelError) return `${error.kind}: ${error.message}`;
        throw error;
      }
      throw new Error('expected a ModelError');
    };
    expect(refused({ thinking: { type: 'enabled', budgetTokens: 4000 } })).toBe(
      'config: claude-sonnet-5-5 does not take a thinking budget: use --thinking adaptive, and --effort for how much it thinks',
    );
    expect(refused({ model: 'claude-opus-5-5', thinking: { type: 'off' } })).toBe(
      'config: claude-opus-5-5 always thinks: --thinking off is not accepted; a lower --effort makes it think less',
    );
    expect(refused({ model: 'claude-haiku-4-5', thinking: { type: 'adaptive' } })).toBe(
      'config: claude-haiku-4-5 does not support adaptive thinking: use --thinking enabled:<budget> or off',
    );
    expect(refused({ model: 'claude-haiku-4-5', effort: 'low' })).toMatch(/^config: claude-haiku-4-5 does not take an effort level/);
    expect(server.requests).toHaveLength(3);
  });

  it('resolves an alias to its full id before any call, from the options or ORCA_MODEL', async () => {
    server.enqueue(reply.text('ok'), reply.text('ok'));
    const opus = model({ model: 'opus' });
    expect(opus.id).toBe('claude-opus-5-5');
    await collect(opus.stream(request, signal()));
    vi.stubEnv('ORCA_MODEL', 'haiku');
    const haiku = new AnthropicModel({ apiKey: 'sk-test-key', baseURL: server.url });
    await collect(haiku.stream(request, signal()));
    expect(server.requests.map((sent) => sent.body.model)).toEqual(['claude-opus-5-5', 'claude-haiku-5-5']);
  });

  it('says once per process that it prices a model it has no price for as Sonnet', async () => {
    server.enqueue(reply.text('ok'), reply.text('ok'));
    const proxy = model({ model: 'my-gateway-model' });
    const first = notices(await collect(proxy.stream(request, signal())));
    const second = notices(await collect(model({ model: 'my-gateway-model' }).stream(request, signal())));
    expect(first).toEqual([
      "orca has no price for model my-gateway-model: its cost and budgets are counted at Sonnet's $3 / $15 per million tokens",
    ]);
    expect(second).toEqual([]);
  });

  it('says when the API set aside thinking blocks whose earlier conversation changed', async () => {
    server.enqueue(reply.thinkingToolUse('Read a.ts first.', 'Read', { file_path: 'a.ts' }, { id: 'toolu_a' }), reply.text('done'));
    const first = blocks(await collect(model().stream(request, signal())));
    // The next request changes the first user message: the thinking block no longer fits what came before it.
    const edited: ModelRequest = {
      ...request,
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Read a.ts, please' }] },
        { role: 'assistant', content: first },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_a', content: 'export const a = 1;' }] },
      ],
    };
    const events = await collect(model().stream(edited, signal()));
    expect(server.requests[1]!.rejection).toBeUndefined();
    expect(server.requests[1]!.dropped).toEqual([
      { type: 'thinking_dropped', path: 'messages.1.content.0', reason: 'prefix_binding_mismatch' },
    ]);
    expect(notices(events)).toEqual([
      'the API set aside 1 earlier thinking block(s) (prefix_binding_mismatch): the conversation before them was compacted',
    ]);
  });
});
