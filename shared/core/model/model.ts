import type { AssistantBlock, Message } from './message.js';
import type { Usage } from './usage.js';

/** A tool as the model sees it: the JSON Schema comes from the tool's zod input. */
export interface ToolSpec {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
  /**
   * Left out of the model's context until its tool search finds it (the API's `defer_loading`,
   * with its tool-search tool): sent only to a model that has native tool search.
   */
  deferLoading?: boolean;
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
  /**
   * How many leading tools make the cached prefix (default all): tools a ToolSearch activated
   * come after them, so the breakpoint stays where it was.
   */
  staticTools?: number;
  /**
   * `none`: the tools are sent (the API wants them defined while the conversation holds tool
   * calls, and a thinking block's conversation includes them) but the model may not call one.
   */
  toolChoice?: 'none';
  /** Room for the answer. A model that thinks on a fixed budget adds that budget to it. */
  maxTokens: number;
  /**
   * Called once, when the response has started (the API's message_start): from then on what this
   * request wrote to the prompt cache is readable by other requests. Not sent to the API.
   */
  onResponseStart?: () => void;
}

/**
 * Why the model stopped, in the API's names. `model_context_window_exceeded`: the conversation
 * filled the model's context window before the answer ended. A reason the API adds later is
 * reported as a notice and handled as the nearest of these.
 */
export type StopReason =
  | 'end_turn'
  | 'tool_use'
  | 'max_tokens'
  | 'stop_sequence'
  | 'pause_turn'
  | 'refusal'
  | 'model_context_window_exceeded';

export type ModelEvent =
  | { type: 'text_delta'; text: string }
  /**
   * One complete block of the answer, in the order the answer has them: text, thinking (signed),
   * redacted thinking, a tool_use once its input JSON has fully arrived, or a block orca does not
   * model. A tool_use whose input is not valid JSON carries `inputError` (what is wrong and how the
   * raw text began) and `{}` as its input: the model is told, the tool does not run.
   */
  | { type: 'block'; block: AssistantBlock; inputError?: string }
  /** `detail`: what the API said about the stop (a refusal's category and explanation). */
  | { type: 'message_end'; stopReason: StopReason; usage: Usage; detail?: string }
  /** Something the transcript should say: an unknown block type or stop reason, blocks the API dropped, a price guessed. */
  | { type: 'notice'; level: 'info' | 'warn'; message: string }
  /**
   * The client is retrying this call from the start (a stream cut or stalled midway): whatever
   * this call yielded so far must be discarded.
   */
  | { type: 'retry'; attempt: number; reason: string };

/**
 * The one interface both model clients implement. `stream` yields text as it arrives, each
 * block once complete, and exactly one `message_end`; it throws a ModelError on failure
 * (an aborted signal throws one of kind `aborted`).
 */
export interface Model {
  /** The model id sent to the API, or `scripted`. */
  readonly id: string;
  /** True when no LLM is behind this model; runs that use it must say so. */
  readonly scripted: boolean;
  /**
   * The API's own tool search is there for this model (tools sent with `defer_loading`, found by
   * its tool-search tool); otherwise deferred tools are found with the client-side ToolSearch.
   */
  readonly nativeToolSearch?: boolean;
  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent>;
  /** US dollars for this usage at this model's prices. */
  cost(usage: Usage): number;
}
