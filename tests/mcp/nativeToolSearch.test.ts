import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AnthropicModel } from '../../shared/core/model/anthropic.js';
import type { ModelRequest } from '../../shared/core/model/model.js';
import { supportsToolSearch } from '../../shared/core/model/modelCapabilities.js';
import { MessagesServer, reply } from '../support/messagesServer.js';

/**
 * What the Messages API is sent for deferred tools and for tool results with images. The native
 * tool search is asked for explicitly here: against a stand-in (any URL but Anthropic's) orca
 * uses its client-side ToolSearch by default, since a proxy may not have the API's.
 */

let server: MessagesServer;

beforeEach(async () => {
  server = new MessagesServer();
  await server.start();
});

afterEach(async () => {
  await server.close();
});

const schema = { type: 'object', properties: { id: { type: 'string' } } };

const request: ModelRequest = {
  system: [{ text: 'Static.', cache: true }, { text: 'Dynamic.' }],
  messages: [
    { role: 'user', content: [{ type: 'text', text: 'Show the logo.' }] },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'mcp__everything__get-tiny-image', input: {} }] },
    {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'toolu_1',
          content: 'The MCP logo:',
          images: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } }],
        },
      ],
    },
  ],
  tools: [
    { name: 'Read', description: 'Reads.', input_schema: schema },
    { name: 'Report', description: 'Ends.', input_schema: schema },
    { name: 'mcp__everything__get-tiny-image', description: 'An image.', input_schema: schema, deferLoading: true },
    { name: 'mcp__everything__echo', description: 'Echoes.', input_schema: schema, deferLoading: true },
  ],
  cacheTools: true,
  staticTools: 4,
  maxTokens: 512,
};

describe('deferred tools and image results on the Messages API', () => {
  it('sends deferred tools with defer_loading and the API’s tool search, the breakpoint on the last tool shown', async () => {
    const model = new AnthropicModel({ apiKey: 'sk-test-key', baseURL: server.url, model: 'claude-sonnet-5-5', nativeToolSearch: true });
    expect(model.nativeToolSearch).toBe(true);
    server.enqueue(reply.text('A small logo.'));
    for await (const _event of model.stream(request, new AbortController().signal));
    const body = server.requests[0]!.body as { tools: Array<Record<string, unknown>>; messages: Array<{ content: unknown[] }> };
    expect(body.tools).toEqual([
      { name: 'Read', description: 'Reads.', input_schema: schema },
      { name: 'Report', description: 'Ends.', input_schema: schema, cache_control: { type: 'ephemeral' } },
      { name: 'mcp__everything__get-tiny-image', description: 'An image.', input_schema: schema, defer_loading: true },
      { name: 'mcp__everything__echo', description: 'Echoes.', input_schema: schema, defer_loading: true },
      { type: 'tool_search_tool_bm25_20251119', name: 'tool_search_tool_bm25' },
    ]);
    expect(body.messages[2]!.content).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'toolu_1',
        content: [
          { type: 'text', text: 'The MCP logo:' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
        ],
      },
    ]);
  });

  it('uses the API’s tool search only with Anthropic’s API and a model that has it', () => {
    const standIn = new AnthropicModel({ apiKey: 'k', baseURL: server.url, model: 'claude-sonnet-5-5' });
    expect(standIn.nativeToolSearch).toBe(false);
    expect(new AnthropicModel({ apiKey: 'k', baseURL: 'https://api.anthropic.com', model: 'claude-opus-4-6' }).nativeToolSearch).toBe(true);
    expect(
      new AnthropicModel({ apiKey: 'k', baseURL: 'https://api.anthropic.com', model: 'claude-3-5-haiku-20241022' }).nativeToolSearch,
    ).toBe(false);
    expect(
      ['claude-fable-5-2', 'claude-haiku-4-5-20251001', 'claude-sonnet-4-5-20250929', 'claude-mythos-preview'].map(supportsToolSearch),
    ).toEqual([true, true, true, true]);
    expect(['claude-sonnet-4-20250514', 'claude-opus-4-1', 'my-proxy-model'].map(supportsToolSearch)).toEqual([false, false, false]);
  });
});
