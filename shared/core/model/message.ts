/**
 * The conversation as the harness keeps it: Anthropic's content-block shapes, owned here so the
 * rest of the harness does not depend on the SDK's types.
 */
export interface CacheControl {
  type: 'ephemeral';
}

export interface TextBlock {
  type: 'text';
  text: string;
  cache_control?: CacheControl;
}

export interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: unknown;
}

/** An image in a tool result, in the API's shape. */
export interface ToolResultImage {
  type: 'image';
  source: { type: 'base64'; media_type: 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp'; data: string };
}

export interface ToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  /** The result's text: what compaction, hooks and the transcript read. */
  content: string;
  /** Images after the text; the API is sent `content` as `[text, ...images]` then. */
  images?: ToolResultImage[];
  is_error?: boolean;
  cache_control?: CacheControl;
}

/**
 * The model's reasoning, exactly as the API sent it: the API checks the signature when the block
 * comes back with its turn (and, on newer models, that nothing before it changed), so neither
 * field is ever edited. The text may be empty when the API omits it.
 */
export interface ThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature: string;
}

/** Reasoning the API encrypted: opaque, sent back unchanged. */
export interface RedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
}

/**
 * A block of the model's answer orca does not model (`server_tool_use`, a server tool's result, a
 * type newer than this SDK): kept as received, in its place, and sent back with its turn.
 */
export interface ApiBlock {
  type: 'api_block';
  block: { type: string } & Record<string, unknown>;
}

export type ContentBlock = TextBlock | ToolUseBlock | ToolResultBlock | ThinkingBlock | RedactedThinkingBlock | ApiBlock;

/** What an assistant turn is made of. */
export type AssistantBlock = TextBlock | ToolUseBlock | ThinkingBlock | RedactedThinkingBlock | ApiBlock;

export interface Message {
  role: 'user' | 'assistant';
  content: ContentBlock[];
}

export function textOf(message: Message): string {
  return message.content
    .filter((block): block is TextBlock => block.type === 'text')
    .map((block) => block.text)
    .join('');
}

/** Blocks the API wants back exactly as it sent them, which nothing in orca may rewrite or mark. */
export function isOpaqueBlock(block: ContentBlock): block is ThinkingBlock | RedactedThinkingBlock | ApiBlock {
  return block.type === 'thinking' || block.type === 'redacted_thinking' || block.type === 'api_block';
}
