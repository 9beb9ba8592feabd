import type { ContentBlock, Message } from './message.js';
import type { ModelRequest } from './model.js';

/**
 * A deterministic token estimate, for the Scripted model's usage and for context budgets: about
 * four characters per token, as Anthropic's guidance has it for English and code. It is not the
 * real tokenizer; it only has to grow with the text and give the same answer every time.
 */
const CHARS_PER_TOKEN = 4;

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/**
 * One piece of a request in the order the API reads it (tools, then system blocks, then each
 * message's blocks). `key` is the piece's exact content, `tokens` its estimate, `cacheBreakpoint`
 * whether the request marks the prefix ending here for caching.
 */
export interface RequestSegment {
  key: string;
  tokens: number;
  cacheBreakpoint: boolean;
}

export function requestSegments(request: Pick<ModelRequest, 'system' | 'messages' | 'tools' | 'cacheTools'>): RequestSegment[] {
  const segments: RequestSegment[] = [];
  request.tools.forEach((tool, index) => {
    const key = JSON.stringify(tool);
    // Like the API's cache_control on the last tool: it covers the whole tool list.
    segments.push({
      key: `tool:${key}`,
      tokens: estimateTokens(key),
      cacheBreakpoint: request.cacheTools === true && index === request.tools.length - 1,
    });
  });
  for (const block of request.system) {
    segments.push({ key: `system:${block.text}`, tokens: estimateTokens(block.text), cacheBreakpoint: block.cache === true });
  }
  for (const message of request.messages) {
    for (const block of message.content) {
      const { cache_control: marker, ...content } = block as ContentBlock & { cache_control?: unknown };
      segments.push({
        key: `${message.role}:${JSON.stringify(content)}`,
        tokens: estimateBlockTokens(block),
        cacheBreakpoint: marker !== undefined,
      });
    }
  }
  return segments;
}

/**
 * Every input token of a request: tool specs, system text and all message blocks; the sum of its
 * segments' tokens, counted without making their keys. The compaction thresholds ask it of the
 * whole conversation before each call: a key is a copy of its block (the system prompt, each tool
 * result as JSON), so making them turned every turn's count into a copy of the conversation.
 */
export function estimateRequestTokens(request: Pick<ModelRequest, 'system' | 'messages' | 'tools'>): number {
  let tokens = estimateMessagesTokens(request.messages);
  for (const tool of request.tools) tokens += estimateTokens(JSON.stringify(tool));
  for (const block of request.system) tokens += estimateTokens(block.text);
  return tokens;
}

export function estimateMessagesTokens(messages: Message[]): number {
  return messages.reduce((sum, message) => sum + message.content.reduce((inner, block) => inner + estimateBlockTokens(block), 0), 0);
}

/** What one image in a tool result is counted as. */
export const IMAGE_TOKENS = 1_600;

export function estimateBlockTokens(block: ContentBlock): number {
  switch (block.type) {
    case 'text':
      return estimateTokens(block.text);
    case 'tool_use':
      return estimateTokens(block.name + JSON.stringify(block.input ?? {}));
    case 'tool_result':
      // An image costs about (width × height) / 750 tokens; its size is not known here, so each is
      // counted as the API's largest usual one (about 1,600 tokens), on the side of counting high.
      return estimateTokens(block.content) + (block.images?.length ?? 0) * IMAGE_TOKENS;
    // Sent back with their turn, so they take room; the signature too, on the side of counting high.
    case 'thinking':
      return estimateTokens(block.thinking + block.signature);
    case 'redacted_thinking':
      return estimateTokens(block.data);
    case 'api_block':
      return estimateTokens(JSON.stringify(block.block));
  }
}
