import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';

/**
 * A local stand-in for Google's Gemini API as Gemini CLI calls it: `POST
 * /v1beta/models/{model}:streamGenerateContent?alt=sse` (each request takes the next queued answer,
 * streamed as the API streams one: `data:` events of GenerateContentResponse, the last with its
 * finishReason and usageMetadata) and `:generateContent` (the same answer whole). It records every
 * request.
 *
 * Strict where the API is: a request without an API key (`x-goog-api-key` or `?key=`) is a 403; a
 * body that is not a GenerateContent request, a function response that does not answer the
 * function calls of the model turn right before it, name for name, or a model turn's calls left
 * unanswered is a 400 in the API's error shape, and takes no answer. A queued call of a function
 * the request did not declare fails the same way: a model cannot call what it was not given.
 */

export type GeminiAnswer = { kind: 'text'; text: string } | { kind: 'call'; name: string; args: Record<string, unknown> };

export const geminiReply = {
  text: (text: string): GeminiAnswer => ({ kind: 'text', text }),
  call: (name: string, args: Record<string, unknown>): GeminiAnswer => ({ kind: 'call', name, args }),
  /** A call of one of orca's tools, as Gemini CLI declares them: `mcp_orca_<Tool>`. */
  orca: (name: string, args: Record<string, unknown>): GeminiAnswer => ({ kind: 'call', name: `mcp_orca_${name}`, args }),
};

const PartSchema = z
  .object({
    text: z.string().optional(),
    functionCall: z
      .object({ name: z.string().min(1), args: z.record(z.string(), z.unknown()).optional() })
      .passthrough()
      .optional(),
    functionResponse: z
      .object({ name: z.string().min(1), response: z.record(z.string(), z.unknown()) })
      .passthrough()
      .optional(),
  })
  .passthrough();

const RequestSchema = z
  .object({
    contents: z.array(z.object({ role: z.enum(['user', 'model']), parts: z.array(PartSchema).min(1) }).strict()).min(1),
    tools: z
      .array(z.object({ functionDeclarations: z.array(z.object({ name: z.string() }).passthrough()).optional() }).passthrough())
      .default([]),
  })
  .passthrough();
type GeminiRequest = z.infer<typeof RequestSchema>;

export interface RecordedGeminiRequest {
  path: string;
  model: string;
  stream: boolean;
  headers: IncomingHttpHeaders;
  // biome-ignore lint/suspicious/noExplicitAny: tests read whatever field of the request they check.
  body: any;
  rejection?: string;
}

export class GeminiServer {
  readonly requests: RecordedGeminiRequest[] = [];
  private readonly queue: GeminiAnswer[] = [];
  private server?: Server;
  private baseUrl = '';

  /** Listens on 127.0.0.1 at a free port; returns the base URL (`http://127.0.0.1:PORT`), as GOOGLE_GEMINI_BASE_URL takes it. */
  async start(): Promise<string> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => this.answer(req.method ?? '', req.url ?? '', req.headers, Buffer.concat(chunks).toString('utf8'), res));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.server = server;
    this.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this.baseUrl;
  }

  get url(): string {
    return this.baseUrl;
  }

  enqueue(...answers: GeminiAnswer[]): void {
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
    const parsedUrl = new URL(url, 'http://stand-in');
    const route = /^\/v1beta\/models\/([^/:]+):(streamGenerateContent|generateContent)$/.exec(parsedUrl.pathname);
    let body: unknown;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      body = raw;
    }
    const recorded: RecordedGeminiRequest = {
      path: parsedUrl.pathname,
      model: route?.[1] ?? '',
      stream: route?.[2] === 'streamGenerateContent',
      headers,
      body,
    };
    this.requests.push(recorded);
    const refuse = (status: number, state: string, message: string) => {
      recorded.rejection = message;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: status, message, status: state } }));
    };
    if (method !== 'POST' || !route) return refuse(404, 'NOT_FOUND', `no such method: ${method} ${parsedUrl.pathname}`);
    if (!headers['x-goog-api-key'] && !parsedUrl.searchParams.get('key')) {
      return refuse(
        403,
        'PERMISSION_DENIED',
        "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
      );
    }
    const parsed = RequestSchema.safeParse(body);
    if (!parsed.success)
      return refuse(400, 'INVALID_ARGUMENT', parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; '));
    const broken = brokenTurns(parsed.data.contents);
    if (broken) return refuse(400, 'INVALID_ARGUMENT', broken);
    const next = this.queue.shift();
    if (!next) return refuse(500, 'INTERNAL', 'the stand-in has no answer queued for this request');
    if (next.kind === 'call' && !declares(parsed.data.tools, next.name)) {
      return refuse(400, 'INVALID_ARGUMENT', `the scripted call of ${next.name} names a function this request did not declare`);
    }
    const part = next.kind === 'call' ? { functionCall: { name: next.name, args: next.args } } : { text: next.text };
    const response = {
      candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 1_200, candidatesTokenCount: 40, totalTokenCount: 1_240 },
      modelVersion: recorded.model,
    };
    if (!recorded.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(response));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(`data: ${JSON.stringify(response)}\r\n\r\n`);
  }
}

/** The API's refusal when function responses do not answer, name for name, the calls of the model turn right before them. */
function brokenTurns(contents: GeminiRequest['contents']): string | undefined {
  for (const [index, content] of contents.entries()) {
    const calls = content.role === 'model' ? content.parts.flatMap((part) => (part.functionCall ? [part.functionCall.name] : [])) : [];
    const answers = content.parts.flatMap((part) => (part.functionResponse ? [part.functionResponse.name] : []));
    if (answers.length > 0) {
      const before = contents[index - 1];
      const asked = before?.role === 'model' ? before.parts.flatMap((part) => (part.functionCall ? [part.functionCall.name] : [])) : [];
      if (asked.join('\n') !== answers.join('\n')) {
        return 'Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.';
      }
    }
    if (calls.length > 0 && index + 1 < contents.length) {
      const after = contents[index + 1]!;
      if (!after.parts.some((part) => part.functionResponse)) {
        return 'Please ensure that function call turn comes immediately after a user turn or after a function response turn.';
      }
    }
  }
  return undefined;
}

function declares(tools: GeminiRequest['tools'], name: string): boolean {
  return tools.some((tool) => (tool.functionDeclarations ?? []).some((declaration) => declaration.name === name));
}
