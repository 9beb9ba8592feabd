import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type MintedAnswer, mergeTurns, prefixOf, type RequestVerdict, ThinkingLedger } from './messagesApiRules.js';
import { type CacheLookup, type CacheUsage, PromptCache } from './messagesCache.js';

/**
 * A local stand-in for the Anthropic Messages API: `POST …/v1/messages` answered with SSE in the
 * real API's event order (message_start, content_block_start, ping, content_block_delta…,
 * content_block_stop, message_delta, message_stop). Each request takes the next queued behaviour,
 * so a test scripts exactly what the client meets: streamed text, tool_use input in partial JSON
 * chunks, HTTP errors with API-shaped bodies, a connection cut, a stall, an `error` event midway.
 * It records every request and how its response ended, including a client closing it early.
 *
 * It is strict by default: every request is first held to the API's rules (messagesApiRules.ts)
 * and one that breaks them gets the API's 400, without taking a queued behaviour. Thinking blocks
 * it streams are signed by it and bound to the conversation before them, so a client that drops,
 * edits, reorders or rebinds one is refused as the API would refuse it.
 *
 * With `cache: true` it keeps the API's prompt cache (messagesCache.ts): each answer's usage
 * reports the cache reads and writes its request made, and a prefix becomes readable once a
 * response for a request that wrote it has started (message_start sent).
 */

export type ServerBlock =
  | { type: 'text'; text: string; chunks?: number }
  /** Signed by the server; its text is sent empty when the model omits thinking text and the request did not ask for it. */
  | { type: 'thinking'; thinking: string; chunks?: number }
  | { type: 'redacted_thinking'; data: string }
  /** Any other block (server_tool_use, a type the SDK does not know), sent whole in its content_block_start. */
  | { type: 'raw'; block: Record<string, unknown> & { type: string } }
  | {
      type: 'tool_use';
      name: string;
      input: unknown;
      id?: string;
      chunks?: number;
      /** Sent instead of JSON.stringify(input), e.g. to send input that does not parse. */
      rawJson?: string;
    };

export interface ServerUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  /** Sent as output_tokens_details.thinking_tokens. */
  thinking_tokens?: number;
}

export interface StreamBehaviour {
  kind: 'stream';
  blocks: ServerBlock[];
  stopReason?: string;
  /** A refusal's category and explanation (message_delta's stop_details). */
  stopDetails?: { category: string | null; explanation: string | null };
  usage?: ServerUsage;
  /** Counted in SSE events written (ping included): cut the TCP connection after this many. */
  cutAfter?: number;
  /** Write this many events, then nothing more; the response stays open. */
  stallAfter?: number;
  /** Write this many events, then an `error` event, then end the response. */
  errorAfter?: { events: number; type: string; message: string };
  /** Pause between events, so a client can act while the stream is running. */
  eventDelayMs?: number;
  /** Pause after the response headers, before message_start: the model's time to first token. */
  startDelayMs?: number;
  headers?: Record<string, string>;
}

export interface HttpErrorBehaviour {
  kind: 'http_error';
  status: number;
  type: string;
  message: string;
  headers?: Record<string, string>;
}

export type Behaviour = StreamBehaviour | HttpErrorBehaviour;

/**
 * How a response ended: sent whole, cut by the server on purpose, closed by the client before
 * it was whole, or dropped when the server itself closed.
 */
export type Outcome = 'completed' | 'cut' | 'client_closed' | 'server_closed';

export interface RecordedRequest {
  index: number;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body. */
  // biome-ignore lint/suspicious/noExplicitAny: tests read whatever field of the request they check.
  body: any;
  receivedAt: number;
  /** Arrival and response start in one server-wide sequence: orders requests against starts without reading clocks. */
  receivedSeq: number;
  /** When message_start was sent (unset: the response never started). */
  startedAt?: number;
  startedSeq?: number;
  /** With `cache: true`: what the request read from the prompt cache and wrote to it (as its usage reports them). */
  cache?: CacheUsage;
  /** When the response ended (for an error status: when its body was sent). */
  endedAt?: number;
  outcome?: Outcome;
  /** Resolves once the response has ended, with how. */
  settled: Promise<Outcome>;
  /** The API's 400 message, when the strict checks refused the request. */
  rejection?: string;
  /** Thinking blocks the request asked to drop that failed the prefix check (reported in input_transformations). */
  dropped: RequestVerdict['dropped'];
  /** The answer streamed, its blocks as a client must send them back (thinking with the signature it was given). */
  answer?: MintedAnswer;
}

type SseEvent = { event: string; data: unknown };

/** Ready-made behaviours. */
export const reply = {
  text(text: string, options: Partial<Omit<StreamBehaviour, 'kind' | 'blocks'>> & { chunks?: number } = {}): StreamBehaviour {
    const { chunks, ...rest } = options;
    return { kind: 'stream', blocks: [{ type: 'text', text, chunks }], stopReason: 'end_turn', ...rest };
  },
  toolUse(
    name: string,
    input: unknown,
    options: Partial<Omit<StreamBehaviour, 'kind' | 'blocks'>> & { chunks?: number; text?: string; id?: string; rawJson?: string } = {},
  ): StreamBehaviour {
    const { chunks, text, id, rawJson, ...rest } = options;
    const blocks: ServerBlock[] = [];
    if (text !== undefined) blocks.push({ type: 'text', text });
    blocks.push({ type: 'tool_use', name, input, chunks, id, rawJson });
    return { kind: 'stream', blocks, stopReason: 'tool_use', ...rest };
  },
  /** A thinking model's tool call: a thinking block, then the tool_use. */
  thinkingToolUse(
    thinking: string,
    name: string,
    input: unknown,
    options: Partial<Omit<StreamBehaviour, 'kind' | 'blocks'>> & { id?: string; rawJson?: string } = {},
  ): StreamBehaviour {
    const { id, rawJson, ...rest } = options;
    return {
      kind: 'stream',
      blocks: [
        { type: 'thinking', thinking, chunks: 2 },
        { type: 'tool_use', name, input, id, rawJson },
      ],
      stopReason: 'tool_use',
      ...rest,
    };
  },
  stream(blocks: ServerBlock[], options: Partial<Omit<StreamBehaviour, 'kind' | 'blocks'>> = {}): StreamBehaviour {
    return { kind: 'stream', blocks, stopReason: blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn', ...options };
  },
  error(status: number, type: string, message: string, headers?: Record<string, string>): HttpErrorBehaviour {
    return { kind: 'http_error', status, type, message, headers };
  },
};

export interface MessagesServerOptions {
  /** Hold every request to the API's rules (default true). */
  strict?: boolean;
  /** The model's context window: a larger prompt (4 characters a token) is "prompt is too long". */
  contextWindowTokens?: number;
  /**
   * Answers a request itself instead of taking the queue's next behaviour, when it returns one: a
   * client's side requests (Claude Code's title and summary calls, which offer no tools) get a plain text.
   */
  answer?: (body: unknown) => Behaviour | undefined;
  /**
   * Keep the API's prompt cache (messagesCache.ts) and report its reads and writes in each
   * answer's usage (a behaviour's own usage figures win). Default false: usage is the behaviour's.
   */
  cache?: boolean;
}

export class MessagesServer {
  readonly requests: RecordedRequest[] = [];
  private readonly queue: Behaviour[] = [];
  private server: Server | undefined;
  private closing = false;
  private ids = 0;
  private baseUrl = '';
  private seq = 0;
  readonly thinking = new ThinkingLedger();
  /** The prompt cache, used with `cache: true`. */
  readonly promptCache = new PromptCache();

  constructor(private readonly options: MessagesServerOptions = {}) {}

  /** Listens on 127.0.0.1 at a free port; returns the base URL (`http://127.0.0.1:PORT`). */
  async start(): Promise<string> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        this.answer(req.method ?? '', req.url ?? '', req.headers, Buffer.concat(chunks).toString('utf8'), res).catch((error: unknown) => {
          // A bug in a behaviour shows up as a broken response, never as a silent hang.
          res.destroy(error instanceof Error ? error : new Error(String(error)));
        });
      });
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    this.baseUrl = `http://127.0.0.1:${port}`;
    return this.baseUrl;
  }

  get url(): string {
    if (!this.baseUrl) throw new Error('MessagesServer: call start() first');
    return this.baseUrl;
  }

  /** Queues behaviours for the next requests, one each, in order. */
  enqueue(...behaviours: Behaviour[]): void {
    this.queue.push(...behaviours);
  }

  /** Behaviours queued but not yet taken by a request. */
  get pending(): number {
    return this.queue.length;
  }

  /** Drops every open connection (stalled streams included) and stops listening. */
  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.closing = true;
    this.server = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
  }

  private async answer(method: string, url: string, headers: IncomingHttpHeaders, raw: string, res: ServerResponse): Promise<void> {
    let resolveSettled!: (outcome: Outcome) => void;
    const settled = new Promise<Outcome>((resolve) => (resolveSettled = resolve));
    let body: unknown;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      body = raw;
    }
    const record: RecordedRequest = {
      index: this.requests.length,
      method,
      path: url,
      headers,
      body,
      receivedAt: Date.now(),
      receivedSeq: ++this.seq,
      settled,
      dropped: [],
    };
    this.requests.push(record);
    let cut = false;
    const finish = (outcome: Outcome): void => {
      if (record.outcome) return;
      record.outcome = outcome;
      record.endedAt = Date.now();
      resolveSettled(outcome);
    };
    res.on('finish', () => finish('completed'));
    res.on('close', () => finish(cut ? 'cut' : this.closing ? 'server_closed' : 'client_closed'));

    if (method !== 'POST' || !url.split('?')[0]!.endsWith('/v1/messages')) {
      return sendError(res, {
        kind: 'http_error',
        status: 404,
        type: 'not_found_error',
        message: `messagesServer serves POST /v1/messages, not ${method} ${url}`,
      });
    }
    const verdict = this.options.strict === false ? undefined : this.thinking.check(body, headers, this.options);
    if (verdict?.error) {
      record.rejection = verdict.error;
      return sendError(res, { kind: 'http_error', status: 400, type: 'invalid_request_error', message: verdict.error });
    }
    record.dropped = verdict?.dropped ?? [];
    const behaviour = this.options.answer?.(body) ?? this.queue.shift();
    if (!behaviour) {
      // 400 so the SDK does not retry it: the test fails on its first unscripted request.
      return sendError(res, {
        kind: 'http_error',
        status: 400,
        type: 'invalid_request_error',
        message: `messagesServer: no behaviour queued for request ${record.index}`,
      });
    }
    if (behaviour.kind === 'http_error') return sendError(res, behaviour);

    const model = typeof (body as { model?: unknown })?.model === 'string' ? (body as { model: string }).model : 'unknown';
    if (verdict && !verdict.thinks && behaviour.blocks.some((block) => block.type === 'thinking' || block.type === 'redacted_thinking')) {
      return sendError(res, {
        kind: 'http_error',
        status: 400,
        type: 'invalid_request_error',
        message: `messagesServer: request ${record.index} does not think (its thinking is off for ${model}), but the behaviour queued for it has thinking blocks`,
      });
    }
    const lookup = this.options.cache ? this.promptCache.lookup(body) : undefined;
    record.cache = lookup?.usage;
    const { events, answer } = this.sseEvents(behaviour, model, body, verdict, lookup?.usage);
    record.answer = answer;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'request-id': `req_local_${record.index}`,
      ...behaviour.headers,
    });
    const stopAt = behaviour.cutAfter ?? behaviour.stallAfter ?? behaviour.errorAfter?.events ?? events.length;
    for (let i = 0; i < Math.min(stopAt, events.length); i += 1) {
      if (res.destroyed) return;
      if (behaviour.startDelayMs && i === 0) await new Promise((resolve) => setTimeout(resolve, behaviour.startDelayMs));
      if (behaviour.eventDelayMs && i > 0) await new Promise((resolve) => setTimeout(resolve, behaviour.eventDelayMs));
      if (res.destroyed) return;
      if (i === 0) this.started(record, lookup);
      await write(res, sse(events[i]!));
    }
    if (res.destroyed) return;
    if (behaviour.cutAfter !== undefined) {
      cut = true;
      res.socket?.destroy();
      return;
    }
    if (behaviour.stallAfter !== undefined) return;
    if (behaviour.errorAfter) {
      const { type, message } = behaviour.errorAfter;
      await write(res, sse({ event: 'error', data: { type: 'error', error: { type, message } } }));
    }
    res.end();
  }

  /** Marked before message_start is written, so no client can see the start before what it wrote is readable. */
  private started(record: RecordedRequest, lookup: CacheLookup | undefined): void {
    record.startedAt = Date.now();
    record.startedSeq = ++this.seq;
    if (lookup) this.promptCache.publish(lookup);
  }

  private sseEvents(
    behaviour: StreamBehaviour,
    model: string,
    body: unknown,
    verdict: RequestVerdict | undefined,
    cached: CacheUsage | undefined,
  ): { events: SseEvent[]; answer: MintedAnswer } {
    // The behaviour's own figures win over the cache's.
    const usage: ServerUsage = { ...cached, ...definedOnly(behaviour.usage ?? {}) };
    // What the answer's thinking is bound to: the conversation it continues (a paused turn included) and the blocks before it.
    const merged = verdict?.messages ?? mergeTurns(((body as { messages?: unknown[] })?.messages ?? []) as never[]);
    const continues = merged.at(-1)?.role === 'assistant';
    const before = continues ? merged.slice(0, -1) : merged;
    const answer: MintedAnswer = { blocks: [], stopReason: behaviour.stopReason ?? 'end_turn' };
    const partial = (): unknown[] => [...(continues ? merged.at(-1).content : []), ...answer.blocks];
    const events: SseEvent[] = [
      {
        event: 'message_start',
        data: {
          type: 'message_start',
          message: {
            id: `msg_local_${++this.ids}`,
            type: 'message',
            role: 'assistant',
            model,
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: {
              input_tokens: usage.input_tokens ?? 10,
              cache_creation_input_tokens: usage.cache_creation_input_tokens === undefined ? 0 : usage.cache_creation_input_tokens,
              cache_read_input_tokens: usage.cache_read_input_tokens === undefined ? 0 : usage.cache_read_input_tokens,
              output_tokens: 1,
            },
            ...(verdict && verdict.dropped.length > 0 ? { input_transformations: verdict.dropped } : {}),
          },
        },
      },
    ];
    const start = (index: number, content_block: unknown) => {
      events.push({ event: 'content_block_start', data: { type: 'content_block_start', index, content_block } });
      if (index === 0) events.push({ event: 'ping', data: { type: 'ping' } });
    };
    const delta = (index: number, value: unknown) =>
      events.push({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta: value } });
    behaviour.blocks.forEach((block, index) => {
      if (block.type === 'text') {
        start(index, { type: 'text', text: '' });
        for (const piece of split(block.text, block.chunks ?? 1)) delta(index, { type: 'text_delta', text: piece });
        answer.blocks.push({ type: 'text', text: block.text });
      } else if (block.type === 'thinking') {
        const shown = verdict && !verdict.showsThinkingText ? '' : block.thinking;
        const signature = this.thinking.mint(shown, prefixOf(body, before, partial()));
        start(index, { type: 'thinking', thinking: '', signature: '' });
        for (const piece of split(shown, block.chunks ?? 1)) delta(index, { type: 'thinking_delta', thinking: piece });
        delta(index, { type: 'signature_delta', signature });
        answer.blocks.push({ type: 'thinking', thinking: shown, signature });
      } else if (block.type === 'redacted_thinking') {
        start(index, { type: 'redacted_thinking', data: block.data });
        answer.blocks.push({ type: 'redacted_thinking', data: block.data });
      } else if (block.type === 'raw') {
        start(index, block.block);
        answer.blocks.push(block.block);
      } else {
        const id = block.id ?? `toolu_local_${++this.ids}`;
        start(index, { type: 'tool_use', id, name: block.name, input: {} });
        const json = block.rawJson ?? JSON.stringify(block.input);
        for (const piece of split(json, block.chunks ?? 1)) delta(index, { type: 'input_json_delta', partial_json: piece });
        answer.blocks.push({ type: 'tool_use', id, name: block.name, input: parsedOrEmpty(json) });
      }
      events.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } });
    });
    this.thinking.record(answer);
    events.push({
      event: 'message_delta',
      data: {
        type: 'message_delta',
        delta: { stop_reason: behaviour.stopReason ?? 'end_turn', stop_sequence: null, stop_details: behaviour.stopDetails ?? null },
        usage: {
          // Like the API, message_delta repeats the input counts (cumulative) when it knows them.
          ...(cached
            ? {
                input_tokens: usage.input_tokens ?? 10,
                cache_creation_input_tokens: usage.cache_creation_input_tokens ?? 0,
                cache_read_input_tokens: usage.cache_read_input_tokens ?? 0,
              }
            : {}),
          output_tokens: usage.output_tokens ?? 5,
          output_tokens_details: usage.thinking_tokens === undefined ? null : { thinking_tokens: usage.thinking_tokens },
        },
      },
    });
    events.push({ event: 'message_stop', data: { type: 'message_stop' } });
    return { events, answer };
  }
}

/** The fields given a value: `{ x: undefined }` does not hide the cache's `x`. */
function definedOnly(usage: ServerUsage): ServerUsage {
  return Object.fromEntries(Object.entries(usage).filter(([, value]) => value !== undefined)) as ServerUsage;
}

/** A tool input as the client will send it back: parsed, or `{}` when it does not parse. */
function parsedOrEmpty(json: string): unknown {
  try {
    return json.trim() === '' ? {} : JSON.parse(json);
  } catch {
    return {};
  }
}

function sendError(res: ServerResponse, behaviour: HttpErrorBehaviour): void {
  res.writeHead(behaviour.status, { 'content-type': 'application/json', 'request-id': 'req_local_error', ...behaviour.headers });
  res.end(JSON.stringify({ type: 'error', error: { type: behaviour.type, message: behaviour.message }, request_id: 'req_local_error' }));
}

function sse(event: SseEvent): string {
  return `event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`;
}

/** Resolves once the chunk is handed to the socket, so a cut after it cannot drop it. */
function write(res: ServerResponse, chunk: string): Promise<void> {
  return new Promise((resolve) => {
    res.write(chunk, () => resolve());
  });
}

/** `text` in `n` consecutive pieces of near-equal length (fewer when the text is shorter). */
function split(text: string, n: number): string[] {
  const count = Math.max(0, Math.min(n, text.length));
  const pieces: string[] = [];
  for (let i = 0; i < count; i += 1) {
    pieces.push(text.slice(Math.floor((i * text.length) / count), Math.floor(((i + 1) * text.length) / count)));
  }
  return pieces;
}
