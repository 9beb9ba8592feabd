import { describe, expect, it } from 'vitest';
import type { Message } from '../../shared/core/model/message.js';
import type { ToolSpec } from '../../shared/core/model/model.js';
import { estimateRequestTokens, requestSegments } from '../../shared/core/model/tokenEstimate.js';

describe('estimateRequestTokens', () => {
  it('is the sum of the request’s segments, for every kind of block', () => {
    const tools: ToolSpec[] = [
      { name: 'Read', description: 'Reads a file.', input_schema: { type: 'object', properties: { file_path: { type: 'string' } } } },
      { name: 'Bash', description: 'Runs a command.', input_schema: { type: 'object' } },
    ];
    const messages: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'Change world to there in greet.txt.', cache_control: { type: 'ephemeral' } }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Read it first.', signature: 'c2lnbmF0dXJl' },
          { type: 'redacted_thinking', data: 'b3BhcXVl' },
          { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: 'greet.txt' } },
          { type: 'api_block', block: { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'x' } } },
        ],
      },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'toolu_1',
            content: '1\thello world\n'.repeat(40),
            images: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } }],
            is_error: false,
          },
        ],
      },
    ];
    const request = {
      system: [{ text: 'You are a worker.', cache: true }, { text: 'Owned paths: greet.txt' }],
      messages,
      tools,
      cacheTools: true,
    };
    const segments = requestSegments(request);
    expect(segments.length).toBe(2 + 2 + 6);
    expect(estimateRequestTokens(request)).toBe(segments.reduce((sum, segment) => sum + segment.tokens, 0));
  });
});
