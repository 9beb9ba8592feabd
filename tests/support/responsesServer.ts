import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';

/**
 * A local stand-in for OpenAI's Responses API (`POST …/v1/responses`, streamed), as Codex calls
 * it: each request takes the next queued answer and gets it as the API streams one
 * (response.created, response.in_progress, response.output_item.added, the item's deltas and
 * done events, response.output_item.done, response.completed with usage). It records every
 * request.
 *
 * Strict where the API is: a request without a bearer key is a 401; a body that is not a
 * Responses request (no model, an `input` that is not a list of items of the API's types, a
 * tool output whose call is not before it, a call left without its output, not streamed) is a
 * 400 in the API's error shape, and takes no answer. A queued call of a tool the request did not
 * offer fails the test's request the same way: a model cannot call what it was not given.
 * A WebSocket upgrade (the Responses API's other transport) is refused and recorded.
 */

/** What the model answers: text, or a call of one offered tool (a namespaced MCP tool names its namespace, `mcp__orca`). */
export type ResponsesAnswer =
  | { kind: 'text'; text: string }
  | { kind: 'call'; name: string; namespace?: string; arguments: unknown }
  /** A call of a freeform tool (Codex's `apply_patch`): its input is text, not JSON. */
  | { kind: 'custom'; name: string; input: string }
  | { kind: 'http_error'; status: number; type: string; message: string };

export const responsesReply = {
  text: (text: string): ResponsesAnswer => ({ kind: 'text', text }),
  call: (name: string, args: unknown, namespace?: string): ResponsesAnswer => ({ kind: 'call', name, namespace, arguments: args }),
  /** A call of one of orca's tools, as Codex offers them: functions in the `mcp__orca` namespace. */
  orca: (name: string, args: unknown): ResponsesAnswer => ({ kind: 'call', name, namespace: 'mcp__orca', arguments: args }),
  custom: (name: string, input: string): ResponsesAnswer => ({ kind: 'custom', name, input }),
};

const ContentSchema = z.object({ type: z.enum(['input_text', 'output_text', 'input_image', 'input_file', 'refusal']) }).passthrough();

const ItemSchema = z.discriminatedUnion('type', [
  z
    .object({ type: z.literal('message'), role: z.enum(['user', 'assistant', 'system', 'developer']), content: z.array(ContentSchema) })
    .passthrough(),
  z.object({ type: z.literal('function_call'), call_id: z.string().min(1), name: z.string().min(1), arguments: z.string() }).passthrough(),
  z.object({ type: z.literal('function_call_output'), call_id: z.string().min(1), output: z.unknown() }).passthrough(),
  z.object({ type: z.literal('custom_tool_call'), call_id: z.string().min(1), name: z.string().min(1), input: z.string() }).passthrough(),
  z.object({ type: z.literal('custom_tool_call_output'), call_id: z.string().min(1), output: z.unknown() }).passthrough(),
  z.object({ type: z.literal('reasoning') }).passthrough(),
]);

const ToolSchema = z
  .object({ type: z.string(), name: z.string().optional(), tools: z.array(z.object({ name: z.string() }).passthrough()).optional() })
  .passthrough();

const RequestSchema = z
  .object({
    model: z.string().min(1),
    instructions: z.string().optional(),
    input: z.array(ItemSchema),
    tools: z.array(ToolSchema).default([]),
    stream: z.literal(true, { message: 'the stand-in answers streamed requests only (stream: true)' }),
  })
  .passthrough();
export type ResponsesRequestBody = z.infer<typeof RequestSchema>;

export interface RecordedResponsesRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  // biome-ignore lint/suspicious/noExplicitAny: tests read whatever field of the request they check.
  body: any;
  /** The API's 4xx message, when the request was refused. */
  rejection?: string;
  receivedAt: number;
}

export class ResponsesServer {
  readonly requests: RecordedResponsesRequest[] = [];
  private readonly queue: ResponsesAnswer[] = [];
  private server?: Server;
  private ids = 0;
  private baseUrl = '';

  /** Listens on 127.0.0.1 at a free port; returns the base URL with the API's version (`http://127.0.0.1:PORT/v1`). */
  async start(): Promise<string> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => this.answer(req.method ?? '', req.url ?? '', req.headers, Buffer.concat(chunks).toString('utf8'), res));
    });
    server.on('upgrade', (req, socket) => {
      this.requests.push({
        method: 'UPGRADE',
        path: req.url ?? '',
        headers: req.headers,
        body: undefined,
        receivedAt: Date.now(),
        rejection: 'websocket',
      });
      socket.end('HTTP/1.1 426 Upgrade Required\r\ncontent-length: 0\r\n\r\n');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.server = server;
    this.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    return this.baseUrl;
  }

  get url(): string {
    return this.baseUrl;
  }

  enqueue(...answers: ResponsesAnswer[]): void {
    this.queue.push(...answers);
  }

  /** Answers not yet taken. */
  get pending(): number {
    return this.queue.length;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private answer(method: string, url: string, headers: IncomingHttpHeaders, raw: string, res: ServerResponse): void {
    let body: unknown;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      body = raw;
    }
    const recorded: RecordedResponsesRequest = { method, path: url.split('?')[0]!, headers, body, receivedAt: Date.now() };
    this.requests.push(recorded);
    const refuse = (status: number, type: string, message: string) => {
      recorded.rejection = message;
      sendError(res, status, type, message);
    };
    if (method !== 'POST' || recorded.path !== '/v1/responses')
      return refuse(404, 'invalid_request_error', `Invalid URL (${method} ${url})`);
    if (!/^Bearer \S+/.test(headers.authorization ?? '')) {
      return refuse(
        401,
        'invalid_request_error',
        "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth.",
      );
    }
    const parsed = RequestSchema.safeParse(body);
    if (!parsed.success)
      return refuse(
        400,
        'invalid_request_error',
        parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; '),
      );
    const broken = brokenPairing(parsed.data.input);
    if (broken) return refuse(400, 'invalid_request_error', broken);
    const next = this.queue.shift();
    if (!next) return refuse(500, 'server_error', 'the stand-in has no answer queued for this request');
    if (next.kind === 'http_error') return refuse(next.status, next.type, next.message);
    if (next.kind !== 'text' && !offers(parsed.data.tools, next)) {
      const name = next.kind === 'call' && next.namespace ? `${next.namespace}.${next.name}` : next.name;
      return refuse(400, 'invalid_request_error', `the scripted call of ${name} names a tool this request did not offer`);
    }
    this.stream(res, parsed.data.model, next);
  }

  private stream(res: ServerResponse, model: string, answer: Exclude<ResponsesAnswer, { kind: 'http_error' }>): void {
    const id = ++this.ids;
    let sequence = 0;
    const send = (type: string, data: Record<string, unknown>) =>
      res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...data })}\n\n`);
    const response = {
      id: `resp_${id}`,
      object: 'response',
      created_at: Math.floor(Date.now() / 1000),
      status: 'in_progress',
      model,
      output: [],
    };
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-request-id': `req_${id}` });
    send('response.created', { response });
    send('response.in_progress', { response });
    const item =
      answer.kind === 'call' ? callItem(id, answer) : answer.kind === 'custom' ? customItem(id, answer) : textItem(id, answer.text);
    if (item.type === 'custom_tool_call') {
      send('response.output_item.added', { output_index: 0, item: { ...item, input: '' } });
      send('response.custom_tool_call_input.delta', { item_id: item.id, output_index: 0, delta: item.input });
      send('response.custom_tool_call_input.done', { item_id: item.id, output_index: 0, input: item.input });
    } else if (item.type === 'function_call') {
      send('response.output_item.added', { output_index: 0, item: { ...item, arguments: '', status: 'in_progress' } });
      send('response.function_call_arguments.delta', { item_id: item.id, output_index: 0, delta: item.arguments });
      send('response.function_call_arguments.done', { item_id: item.id, output_index: 0, arguments: item.arguments });
    } else {
      const part = { type: 'output_text', text: '', annotations: [] };
      send('response.output_item.added', { output_index: 0, item: { ...item, content: [], status: 'in_progress' } });
      send('response.content_part.added', { item_id: item.id, output_index: 0, content_index: 0, part });
      send('response.output_text.delta', { item_id: item.id, output_index: 0, content_index: 0, delta: item.content[0]!.text });
      send('response.output_text.done', { item_id: item.id, output_index: 0, content_index: 0, text: item.content[0]!.text });
      send('response.content_part.done', { item_id: item.id, output_index: 0, content_index: 0, part: item.content[0] });
    }
    send('response.output_item.done', { output_index: 0, item });
    const usage = {
      input_tokens: 1_200,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 40,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 1_240,
    };
    send('response.completed', { response: { ...response, status: 'completed', output: [item], usage } });
    res.end();
  }
}

function callItem(id: number, answer: Extract<ResponsesAnswer, { kind: 'call' }>) {
  return {
    type: 'function_call' as const,
    id: `fc_${id}`,
    call_id: `call_${id}`,
    name: answer.name,
    ...(answer.namespace ? { namespace: answer.namespace } : {}),
    arguments: JSON.stringify(answer.arguments),
    status: 'completed',
  };
}

function customItem(id: number, answer: Extract<ResponsesAnswer, { kind: 'custom' }>) {
  return {
    type: 'custom_tool_call' as const,
    id: `ctc_${id}`,
    call_id: `call_${id}`,
    name: answer.name,
    input: answer.input,
    status: 'completed',
  };
}

function textItem(id: number, text: string) {
  return {
    type: 'message' as const,
    id: `msg_${id}`,
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text, annotations: [] as unknown[] }],
  };
}

/** The API's refusal when a tool output answers no call before it, or a call is left without its output. */
function brokenPairing(input: ResponsesRequestBody['input']): string | undefined {
  const calls = new Set<string>();
  const answered = new Set<string>();
  for (const item of input) {
    if (item.type === 'function_call' || item.type === 'custom_tool_call') calls.add(item.call_id);
    if (item.type === 'function_call_output' || item.type === 'custom_tool_call_output') {
      if (!calls.has(item.call_id)) return `No tool call found for function call output with call_id ${item.call_id}.`;
      answered.add(item.call_id);
    }
  }
  const open = [...calls].find((call) => !answered.has(call));
  return open ? `No tool output found for function call ${open}.` : undefined;
}

/** Whether the request offered the tool a scripted call names: a function, or one in the namespace named. */
function offers(tools: ResponsesRequestBody['tools'], call: Extract<ResponsesAnswer, { kind: 'call' | 'custom' }>): boolean {
  if (call.kind === 'call' && call.namespace)
    return tools.some(
      (tool) => tool.type === 'namespace' && tool.name === call.namespace && (tool.tools ?? []).some((inner) => inner.name === call.name),
    );
  return tools.some((tool) => tool.name === call.name);
}

function sendError(res: ServerResponse, status: number, type: string, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { message, type, param: null, code: null } }));
}
