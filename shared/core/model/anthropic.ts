import { setTimeout as sleep } from 'node:timers/promises';
import type Anthropic from '@anthropic-ai/sdk';
import type { ClientOptions } from '@anthropic-ai/sdk';
import type { Stream } from '@anthropic-ai/sdk/core/streaming';
import type {
  StopReason as ApiStopReason,
  Tool as ApiTool,
  ContentBlockParam,
  MessageCreateParamsBase,
  MessageParam,
  RawMessageStreamEvent,
  TextBlockParam,
  ToolResultBlockParam,
  ToolSearchToolBm25_20251119,
  ToolUnion,
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
import { anthropicSdk, loadedAnthropicSdk } from './anthropicSdk.js';
import { AnswerAssembly, MessageTotals } from './anthropicStream.js';
import type { ContentBlock, Message } from './message.js';
import type { Model, ModelEvent, ModelRequest, StopReason } from './model.js';
import { resolveModelId } from './modelAliases.js';
import { supportsToolSearch, type ThinkingRequest, thinkingRequest } from './modelCapabilities.js';
import { ModelError, type ModelErrorKind } from './modelError.js';
import { costOf, hasOwnPrice } from './pricing.js';
import type { Effort, ThinkingSetting } from './thinking.js';
import type { Usage } from './usage.js';

export { DEFAULT_MODEL } from './modelAliases.js';

export interface AnthropicModelOptions {
  /** Defaults to ANTHROPIC_API_KEY. */
  apiKey?: string;
  /**
   * A missing key fails the first call, not the construction: a job whose agent is an external
   * one (ACP) brings its own model and key, and orca's model is called only if something of
   * orca's own asks it (docs/agents.md).
   */
  keyAtFirstCall?: boolean;
  /** Defaults to ANTHROPIC_BASE_URL, then the public API. */
  baseURL?: string;
  /** An id or alias; defaults to ORCA_MODEL, then DEFAULT_MODEL (modelAliases.ts resolves it). */
  model?: string;
  /** How the model thinks; default: the model family's (modelCapabilities.ts). */
  thinking?: ThinkingSetting;
  /** `output_config.effort`; default: the API's for the model. */
  effort?: Effort;
  /** Retries of a failed call: HTTP failures (by the SDK) and streams that break midway (here). */
  maxRetries?: number;
  /** A stream silent for longer than this is treated as broken and retried. */
  idleTimeoutMs?: number;
  /** How long to wait for the response headers of one HTTP attempt. */
  requestTimeoutMs?: number;
  /**
   * Use the API's own tool search for deferred tools. Default: when the model supports it and the
   * calls go to Anthropic's API itself (a proxy or stand-in may not have it).
   */
  nativeToolSearch?: boolean;
}

export const MISSING_API_KEY = 'ANTHROPIC_API_KEY is not set: export it, or pass --script FILE to run without an LLM';

const DEFAULT_MAX_RETRIES = 4;
const DEFAULT_IDLE_TIMEOUT_MS = 90_000;
const DEFAULT_REQUEST_TIMEOUT_MS = 10 * 60_000;
const EPHEMERAL = { type: 'ephemeral' } as const;
/** The API's own tool search, sent when some tools are deferred (natural-language queries, as ToolSearch takes). */
const NATIVE_TOOL_SEARCH: ToolSearchToolBm25_20251119 = { type: 'tool_search_tool_bm25_20251119', name: 'tool_search_tool_bm25' };
/** How much of a broken tool input the model is shown back. */

/** Ids priced as Sonnet because the price table does not know them: said once per process. */
const guessedPrices = new Set<string>();

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

/** The Messages API through the official SDK, streamed, with prompt caching, thinking and retries. */
export class AnthropicModel implements Model {
  readonly id: string;
  readonly scripted = false;
  readonly nativeToolSearch: boolean;
  /** The thinking and effort fields every call carries. */
  readonly thinking: ThinkingRequest;
  /** Made at the first call, when the SDK is imported (anthropicSdk.ts). */
  private client: Promise<Anthropic> | undefined;
  private readonly clientOptions: ClientOptions;
  private readonly maxRetries: number;
  private readonly idleTimeoutMs: number;
  private readonly errorContext: ErrorContext;
  private readonly missingKey: boolean;

  constructor(options: AnthropicModelOptions = {}) {
    const apiKey = options.apiKey || process.env.ANTHROPIC_API_KEY;
    if (!apiKey && !options.keyAtFirstCall) throw new ModelError('auth', MISSING_API_KEY);
    this.missingKey = !apiKey;
    const baseURL = options.baseURL || process.env.ANTHROPIC_BASE_URL || 'https://api.anthropic.com';
    this.id = resolveModelId(options.model);
    this.thinking = thinkingRequest(this.id, options.thinking, options.effort);
    this.nativeToolSearch = options.nativeToolSearch ?? (supportsToolSearch(this.id) && new URL(baseURL).hostname === 'api.anthropic.com');
    this.maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
    this.idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    const requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    // The SDK retries 408, 409, 429 and every 5xx (529 included), honouring retry-after.
    this.clientOptions = { apiKey, baseURL, maxRetries: this.maxRetries, timeout: requestTimeoutMs };
    this.errorContext = { model: this.id, baseURL, maxRetries: this.maxRetries, requestTimeoutMs };
  }

  async *stream(request: ModelRequest, signal: AbortSignal): AsyncGenerator<ModelEvent> {
    if (this.missingKey) throw new ModelError('auth', MISSING_API_KEY);
    if (!hasOwnPrice(this.id) && !guessedPrices.has(this.id)) {
      guessedPrices.add(this.id);
      yield {
        type: 'notice',
        level: 'warn',
        message: `orca has no price for model ${this.id}: its cost and budgets are counted at Sonnet's $3 / $15 per million tokens`,
      };
    }
    const params = toParams(request, this.id, this.thinking);
    let started = false;
    const onStart = (): void => {
      if (started) return;
      started = true;
      request.onResponseStart?.();
    };
    for (let attempt = 0; ; attempt += 1) {
      let broke: StreamBreak;
      try {
        yield* this.attempt(params, signal, onStart);
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

  /**
   * One call: yields as the stream arrives; throws a StreamBreak (retry) or a ModelError (give up).
   * The raw event stream, not the SDK's MessageStream: that one parses each tool input as it
   * accumulates the message and breaks the whole stream on input that is not JSON, which here
   * is the model's mistake to be told of, not a failed call.
   */
  private async *attempt(params: MessageCreateParamsBase, signal: AbortSignal, onStart: () => void): AsyncGenerator<ModelEvent> {
    const headers = this.thinking.betas.length > 0 ? { 'anthropic-beta': this.thinking.betas.join(',') } : undefined;
    let stream: Stream<RawMessageStreamEvent> | undefined;
    let connected = false;
    let stalled = false;
    let ended = false;
    let idle: NodeJS.Timeout | undefined;
    // Armed by what arrives from the server, not by what the caller has read: a slow consumer
    // is not a stalled stream.
    const watch = (): void => {
      clearTimeout(idle);
      idle = setTimeout(() => {
        stalled = true;
        stream?.controller.abort();
      }, this.idleTimeoutMs);
    };
    try {
      // Resolves once the response headers are in; the SDK has retried HTTP failures before that.
      this.client ??= anthropicSdk().then(({ default: Sdk }) => new Sdk(this.clientOptions));
      stream = await (await this.client).messages.create({ ...params, stream: true }, { signal, headers });
      connected = true;
      watch();
      const answer = new AnswerAssembly();
      const message = new MessageTotals();
      for await (const event of stream) {
        watch();
        if (event.type === 'message_start') onStart();
        if (message.take(event)) continue;
        yield* answer.take(event);
      }
      // An abort ends the iteration quietly: say why it ended.
      if (signal.aborted) throw toModelError(signal.reason, this.errorContext, signal);
      if (stalled) throw new StreamBreak('stream', `the response stream went silent for ${this.idleTimeoutMs} ms`);
      if (!message.stopped) throw new StreamBreak('stream', 'the response stream ended before message_stop');
      ended = true;
      // Input cut off by the output limit is dropped: the loop asks the model to go on in smaller
      // steps. Input that is broken in a finished answer goes to the model as an error result.
      yield* answer.finish(message.stopReason !== 'max_tokens');
      yield* droppedByTheApi(message.inputTransformations);
      const stop = toStopReason(message.stopReason, answer.hasToolUse);
      if (stop.notice) yield { type: 'notice', level: 'warn', message: stop.notice };
      yield {
        type: 'message_end',
        stopReason: stop.reason,
        usage: message.usage(),
        ...(message.stopDetails ? { detail: describeStopDetails(message.stopDetails) } : {}),
      };
    } catch (error) {
      throw this.classify(error, signal, connected, stalled);
    } finally {
      clearTimeout(idle);
      if (stream && !ended) stream.controller.abort();
    }
  }

  private classify(error: unknown, signal: AbortSignal, connected: boolean, stalled: boolean): Error {
    if (error instanceof ModelError || error instanceof StreamBreak) return error;
    if (signal.aborted) return toModelError(error, this.errorContext, signal);
    if (stalled) return new StreamBreak('stream', `the response stream went silent for ${this.idleTimeoutMs} ms`, { cause: error });
    // Before the response started, the SDK has already retried what deserves it.
    if (!connected) return toModelError(error, this.errorContext, signal);
    const sdk = loadedAnthropicSdk();
    if (sdk && error instanceof sdk.APIError && error.status === undefined) {
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

/** The API's dropping of thinking blocks whose earlier conversation changed (a compaction), said in the transcript. */
function* droppedByTheApi(transformations: unknown): Generator<ModelEvent> {
  const changes = Array.isArray(transformations) ? (transformations as Array<Record<string, unknown>>) : [];
  const dropped = changes.filter((change) => change.type === 'thinking_dropped');
  if (dropped.length === 0) return;
  const reasons = [...new Set(dropped.map((change) => String(change.reason)))].join(', ');
  yield {
    type: 'notice',
    level: 'info',
    message: `the API set aside ${dropped.length} earlier thinking block(s) (${reasons}): the conversation before them was compacted`,
  };
}

function toParams(request: ModelRequest, model: string, thinking: ThinkingRequest): MessageCreateParamsBase {
  const params: MessageCreateParamsBase = {
    model,
    max_tokens: request.maxTokens + thinking.extraMaxTokens,
    messages: request.messages.map(toMessageParam),
  };
  if (thinking.thinking) {
    // `block_binding` is a field of the thinking-binding beta (sent with its header), not of the SDK's GA type.
    params.thinking = thinking.thinking as MessageCreateParamsBase['thinking'];
  }
  if (thinking.effort) params.output_config = { effort: thinking.effort };
  if (request.system.length > 0) {
    params.system = request.system.map(
      (block): TextBlockParam =>
        block.cache ? { type: 'text', text: block.text, cache_control: EPHEMERAL } : { type: 'text', text: block.text },
    );
  }
  if (request.tools.length > 0) {
    // The breakpoint ends the tools that never change: on the last of the static ones that the
    // model is shown (a deferred tool is not in the prompt until the search finds it).
    const fixed = request.tools.slice(0, request.staticTools ?? request.tools.length);
    const last = fixed.findLastIndex((tool) => !tool.deferLoading);
    const tools: ToolUnion[] = request.tools.map((tool, index): ApiTool => {
      const spec: ApiTool = { name: tool.name, description: tool.description, input_schema: tool.input_schema as ApiTool.InputSchema };
      if (tool.deferLoading) spec.defer_loading = true;
      if (request.cacheTools && index === last) spec.cache_control = EPHEMERAL;
      return spec;
    });
    if (request.tools.some((tool) => tool.deferLoading)) tools.push(NATIVE_TOOL_SEARCH);
    params.tools = tools;
    if (request.toolChoice === 'none') params.tool_choice = { type: 'none' };
  }
  return params;
}

/**
 * The harness keeps messages in the API's own shapes (cache_control included); only a block kept
 * as received is unwrapped, and a tool result with images gets its content as `[text, ...images]`.
 */
function toMessageParam(message: Message): MessageParam {
  const content = message.content.map((block: ContentBlock): ContentBlockParam => {
    if (block.type === 'api_block') return block.block as unknown as ContentBlockParam;
    if (block.type === 'tool_result' && block.images && block.images.length > 0) {
      const { images, content: text, ...rest } = block;
      const param: ToolResultBlockParam = { ...rest, content: [...(text ? [{ type: 'text' as const, text }] : []), ...images] };
      return param;
    }
    return block as ContentBlockParam;
  });
  return { role: message.role, content };
}

const STOP_REASONS: ReadonlySet<string> = new Set<StopReason>([
  'end_turn',
  'tool_use',
  'max_tokens',
  'stop_sequence',
  'pause_turn',
  'refusal',
  'model_context_window_exceeded',
]);

/** A stop reason the API names today, or for one added later the nearest (and a notice saying so). */
function toStopReason(reason: ApiStopReason | null, hasToolUse: boolean): { reason: StopReason; notice?: string } {
  if (reason === null) throw new StreamBreak('stream', 'the response ended without a stop reason');
  if (STOP_REASONS.has(reason)) return { reason: reason as StopReason };
  const nearest: StopReason = hasToolUse ? 'tool_use' : 'end_turn';
  return { reason: nearest, notice: `the API sent stop reason "${String(reason)}", which orca does not know: handled as ${nearest}` };
}

function describeStopDetails(details: { category?: string | null; explanation?: string | null }): string {
  const parts = [details.category ? `category ${details.category}` : '', details.explanation ? oneLine(details.explanation) : ''];
  return parts.filter(Boolean).join(': ');
}

/** The SDK's own backoff: 0.5 s doubling to at most 8 s, less up to a quarter of jitter. */
function backoffMs(attempt: number): number {
  return Math.min(500 * 2 ** attempt, 8_000) * (1 - Math.random() * 0.25);
}
