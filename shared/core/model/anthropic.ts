import { setTimeout as sleep } from 'node:timers/promises';
import Anthropic, { APIError } from '@anthropic-ai/sdk';
import type {
  StopReason as ApiStopReason,
  Tool as ApiTool,
  Usage as ApiUsage,
  MessageCreateParamsBase,
  TextBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import {
  apiModelError,
  causeChain,
  type ErrorContext,
  isRetryableType,
  kindOf,
  oneLine,
  retries,
  toModelError,
} from './anthropicErrors.js';
import type { Model, ModelEvent, ModelRequest, StopReason } from './model.js';
import { ModelError, type ModelErrorKind } from './modelError.js';
import { costOf } from './pricing.js';
import type { Usage } from './usage.js';

export interface AnthropicModelOptions {
  /** Defaults to ANTHROPIC_API_KEY. */
  apiKey?: string;
  /** Defaults to ANTHROPIC_BASE_URL, then the public API. */
  baseURL?: string;
  /** Defaults to ORCA_MODEL, then DEFAULT_MODEL. */
  model?: string;
  /** Retries of a failed call: HTTP failures (by the SDK) and streams that break midway (here). */
  maxRetries?: number;
  /** A stream silent for longer than this is treated as broken and retried. */
  idleTimeoutMs?: number;
  /** How long to wait for the response headers of one HTTP attempt. */
  requestTimeoutMs?: number;
}

/**
 * The newest Sonnet that answers without thinking blocks unless asked. Sonnet 5 and later think
 * by default and want their thinking blocks sent back with each assistant turn, which the
 * harness's messages do not carry yet.
 */
export const DEFAULT_MODEL = 'claude-sonnet-4-6';
export const MISSING_API_KEY = 'ANTHROPIC_API_KEY is not set: export it, or pass --script FILE to run without an LLM';

const DEFAULT_MAX_RETRIES = 4;
const DEFAULT_IDLE_TIMEOUT_MS = 90_000;
const DEFAULT_REQUEST_TIMEOUT_MS = 10 * 60_000;
const EPHEMERAL = { type: 'ephemeral' } as const;

/**
 * A stream that broke after the response had started (cut, stalled, an `error` event): the SDK
 * does not retry these, so the model retries the whole call itself.
 */
class StreamBreak extends Error {
  constructor(
    readonly kind: ModelErrorKind,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(reason, options);
  }
}

/** The Messages API through the official SDK, streamed, with prompt caching and retries. */
export class AnthropicModel implements Model {
  readonly id: string;
  readonly scripted = false;
  private readonly client: Anthropic;
  private readonly maxRetries: number;
  private readonly idleTimeoutMs: number;
  private readonly errorContext: ErrorContext;

  constructor(options: AnthropicModelOptions = {}) {
    const apiKey = options.apiKey || process.env.ANTHROPIC_API_KEY;
    if (!apiKey) throw new ModelError('auth', MISSING_API_KEY);
    const baseURL = options.baseURL || process.env.ANTHROPIC_BASE_URL || 'https://api.anthropic.com';
    this.id = options.model || process.env.ORCA_MODEL || DEFAULT_MODEL;
    this.maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
    this.idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    const requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    // The SDK retries 408, 409, 429 and every 5xx (529 included), honouring retry-after.
    this.client = new Anthropic({ apiKey, baseURL, maxRetries: this.maxRetries, timeout: requestTimeoutMs });
    this.errorContext = { model: this.id, baseURL, maxRetries: this.maxRetries, requestTimeoutMs };
  }

  async *stream(request: ModelRequest, signal: AbortSignal): AsyncGenerator<ModelEvent> {
    const params = toParams(request, this.id);
    for (let attempt = 0; ; attempt += 1) {
      let broke: StreamBreak;
      try {
        yield* this.attempt(params, signal);
        return;
      } catch (error) {
        if (!(error instanceof StreamBreak)) throw error;
        broke = error;
      }
      if (attempt >= this.maxRetries) {
        throw new ModelError(broke.kind, `${broke.reason} ${retries(attempt)}`, undefined, { cause: broke.cause });
      }
      yield { type: 'retry', attempt: attempt + 1, reason: broke.reason };
      try {
        await sleep(backoffMs(attempt), undefined, { signal });
      } catch (error) {
        throw toModelError(error, this.errorContext, signal);
      }
    }
  }

  cost(usage: Usage): number {
    return costOf(this.id, usage);
  }

  /** One call: yields as the stream arrives; throws a StreamBreak (retry) or a ModelError (give up). */
  private async *attempt(params: MessageCreateParamsBase, signal: AbortSignal): AsyncGenerator<ModelEvent> {
    const stream = this.client.messages.stream(params, { signal });
    let connected = false;
    let stalled = false;
    let idle: NodeJS.Timeout | undefined;
    // Armed by what arrives from the server, not by what the caller has read: a slow consumer
    // is not a stalled stream.
    const watch = (): void => {
      clearTimeout(idle);
      idle = setTimeout(() => {
        stalled = true;
        stream.abort();
      }, this.idleTimeoutMs);
    };
    stream.on('connect', () => {
      connected = true;
      watch();
    });
    stream.on('streamEvent', watch);
    stream.on('end', () => clearTimeout(idle));

    const toolUses = new Map<number, { id: string; name: string; json: string }>();
    let unparsed: string | undefined;
    try {
      for await (const event of stream) {
        if (event.type === 'content_block_start') {
          const block = event.content_block;
          if (block.type === 'tool_use') toolUses.set(event.index, { id: block.id, name: block.name, json: '' });
          else if (block.type === 'text' && block.text) yield { type: 'text_delta', text: block.text };
        } else if (event.type === 'content_block_delta') {
          if (event.delta.type === 'text_delta') yield { type: 'text_delta', text: event.delta.text };
          else if (event.delta.type === 'input_json_delta') {
            const use = toolUses.get(event.index);
            if (use) use.json += event.delta.partial_json;
          }
        } else if (event.type === 'content_block_stop') {
          const use = toolUses.get(event.index);
          if (!use) continue;
          toolUses.delete(event.index);
          const input = parseToolInput(use.json);
          if (input.ok) yield { type: 'tool_use', id: use.id, name: use.name, input: input.value };
          else unparsed ??= `the input of tool_use ${use.name} (${use.id}) is not valid JSON: ${input.problem}`;
        }
      }
      // Rejects with the stream's error even when the iterator ended quietly after it.
      const message = await stream.finalMessage();
      // Input cut off by the output limit is dropped: the loop asks the model to go on in smaller
      // steps. Input that is broken in a finished answer is the model's failure.
      if (unparsed && message.stop_reason !== 'max_tokens') throw new ModelError('stream', unparsed);
      yield { type: 'message_end', stopReason: toStopReason(message.stop_reason), usage: toUsage(message.usage) };
    } catch (error) {
      throw this.classify(error, signal, connected, stalled);
    } finally {
      clearTimeout(idle);
      if (!stream.ended) stream.abort();
    }
  }

  private classify(error: unknown, signal: AbortSignal, connected: boolean, stalled: boolean): Error {
    if (error instanceof ModelError || error instanceof StreamBreak) return error;
    if (signal.aborted) return toModelError(error, this.errorContext, signal);
    if (stalled) return new StreamBreak('stream', `the response stream went silent for ${this.idleTimeoutMs} ms`, { cause: error });
    // Before the response started, the SDK has already retried what deserves it.
    if (!connected) return toModelError(error, this.errorContext, signal);
    if (error instanceof APIError && error.status === undefined) {
      // An `error` event in the stream, such as overloaded_error.
      if (!isRetryableType(error.type)) return apiModelError(error, this.errorContext, 0);
      const message = oneLine(error.apiMessage ?? error.message);
      return new StreamBreak(kindOf(undefined, error.type, message, error.errorCode), `the API sent ${error.type} midway (${message})`, {
        cause: error,
      });
    }
    return new StreamBreak('stream', `the response stream broke off: ${oneLine(causeChain(error))}`, { cause: error });
  }
}

function toParams(request: ModelRequest, model: string): MessageCreateParamsBase {
  const params: MessageCreateParamsBase = {
    model,
    max_tokens: request.maxTokens,
    // The harness keeps messages in the API's own shapes, cache_control included.
    messages: request.messages,
  };
  if (request.system.length > 0) {
    params.system = request.system.map(
      (block): TextBlockParam =>
        block.cache ? { type: 'text', text: block.text, cache_control: EPHEMERAL } : { type: 'text', text: block.text },
    );
  }
  if (request.tools.length > 0) {
    const last = request.tools.length - 1;
    params.tools = request.tools.map((tool, index): ApiTool => {
      const spec: ApiTool = { name: tool.name, description: tool.description, input_schema: tool.input_schema as ApiTool.InputSchema };
      if (request.cacheTools && index === last) spec.cache_control = EPHEMERAL;
      return spec;
    });
  }
  return params;
}

function parseToolInput(json: string): { ok: true; value: unknown } | { ok: false; problem: string } {
  // A tool called without arguments streams no input_json_delta at all.
  if (json.trim() === '') return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(json) };
  } catch (error) {
    return { ok: false, problem: error instanceof Error ? error.message : String(error) };
  }
}

const STOP_REASONS: ReadonlySet<string> = new Set<StopReason>([
  'end_turn',
  'tool_use',
  'max_tokens',
  'stop_sequence',
  'pause_turn',
  'refusal',
]);

function toStopReason(reason: ApiStopReason | null): StopReason {
  if (reason === 'model_context_window_exceeded') {
    throw new ModelError(
      'bad_request',
      "the conversation no longer fits the model's context window (stop reason model_context_window_exceeded)",
    );
  }
  if (reason === null) throw new StreamBreak('stream', 'the response ended without a stop reason');
  if (!STOP_REASONS.has(reason)) throw new ModelError('stream', `the API sent an unknown stop reason "${String(reason)}"`);
  return reason as StopReason;
}

function toUsage(usage: ApiUsage): Usage {
  return {
    input_tokens: usage.input_tokens ?? 0,
    output_tokens: usage.output_tokens ?? 0,
    cache_read_tokens: usage.cache_read_input_tokens ?? 0,
    cache_creation_tokens: usage.cache_creation_input_tokens ?? 0,
  };
}

/** The SDK's own backoff: 0.5 s doubling to at most 8 s, less up to a quarter of jitter. */
function backoffMs(attempt: number): number {
  return Math.min(500 * 2 ** attempt, 8_000) * (1 - Math.random() * 0.25);
}
