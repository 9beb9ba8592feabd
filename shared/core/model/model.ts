import type { Message } from './message.js';
import type { Usage } from './usage.js';

/** A tool as the model sees it: the JSON Schema comes from the tool's zod input. */
export interface ToolSpec {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}

/**
 * One part of the system prompt. `cache` marks the end of a cacheable prefix (Anthropic's
 * `cache_control`): the static part of the prompt ends with one.
 */
export interface SystemBlock {
  text: string;
  cache?: boolean;
}

export interface ModelRequest {
  system: SystemBlock[];
  messages: Message[];
  tools: ToolSpec[];
  /** Put a cache breakpoint on the tool list (the first cacheable prefix). */
  cacheTools?: boolean;
  maxTokens: number;
}

export type StopReason = 'end_turn' | 'tool_use' | 'max_tokens' | 'stop_sequence' | 'pause_turn' | 'refusal';

export type ModelEvent =
  | { type: 'text_delta'; text: string }
  /** A complete tool_use block: emitted once its input JSON has fully arrived and parsed. */
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'message_end'; stopReason: StopReason; usage: Usage }
  /**
   * The client is retrying this call from the start (a stream cut or stalled midway): whatever
   * this call yielded so far must be discarded.
   */
  | { type: 'retry'; attempt: number; reason: string };

/**
 * The one interface both model clients implement. `stream` yields text as it arrives, each
 * tool_use once complete, and exactly one `message_end`; it throws a ModelError on failure
 * (an aborted signal throws one of kind `aborted`).
 */
export interface Model {
  /** The model id sent to the API, or `scripted`. */
  readonly id: string;
  /** True when no LLM is behind this model; runs that use it must say so. */
  readonly scripted: boolean;
  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent>;
  /** US dollars for this usage at this model's prices. */
  cost(usage: Usage): number;
}
