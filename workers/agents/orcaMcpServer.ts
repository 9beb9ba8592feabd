import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server as McpServer } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

/** A tool as the agent is offered it over MCP. */
export interface OfferedTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** What a call of one comes to: the text the agent reads, and whether it failed. */
export interface OfferedResult {
  content: string;
  isError: boolean;
}

/** orca's tools as one session offers them, and what a call of one runs. */
export interface McpTools {
  tools: OfferedTool[];
  call: (name: string, input: unknown) => Promise<OfferedResult>;
}

/** The server's address, for the agent's `session/new` (an HTTP MCP server with its bearer token). */
export interface OrcaMcpEndpoint {
  url: string;
  headers: Array<{ name: string; value: string }>;
  close(): Promise<void>;
}

/** The name the agent knows the server by: its tools are `mcp__orca__<Tool>` to Claude Code, `orca_<Tool>` to OpenCode. */
export const ORCA_MCP_NAME = 'orca';

/**
 * The ways agents name an MCP server's tools: Claude Code's `mcp__orca__Write`, OpenCode's
 * `orca_Write`, Codex's `Tool: orca/Write` (its call's title), Gemini CLI's `Write (orca MCP Server)`.
 */
const ORCA_TOOL_NAME = new RegExp(
  `^((mcp__${ORCA_MCP_NAME}__|${ORCA_MCP_NAME}_|Tool: ${ORCA_MCP_NAME}/)[A-Za-z]+|[A-Za-z]+ \\(${ORCA_MCP_NAME} MCP Server\\))$`,
);

/** Gemini CLI's id for a call, which names the tool (`mcp_orca_Bash__mcp_orca_Bash_<time>_<n>`) where its title does not (the command). */
const ORCA_TOOL_CALL_ID = new RegExp(`^mcp_${ORCA_MCP_NAME}_[A-Za-z]+__`);

/** Whether a call the agent streams or asks about is of one of orca's own tools (judged and recorded where it runs), by its name or its id. */
export function isOrcaToolCall(name: string, callId = ''): boolean {
  return ORCA_TOOL_NAME.test(name) || ORCA_TOOL_CALL_ID.test(callId);
}

/**
 * Codex asks before each call of an MCP server's tool (an elicitation of its own, whatever its
 * approval policy), naming the server in the request's input rather than in its title.
 */
const CodexToolApprovalSchema = z.object({
  server_name: z.literal(ORCA_MCP_NAME),
  request: z.object({ _meta: z.object({ codex_approval_kind: z.literal('mcp_tool_call') }) }),
});

/** Whether a permission request is an agent asking to run one of orca's tools (`input`: the request's rawInput). */
export function isOrcaToolApproval(name: string, callId: string, input: unknown): boolean {
  return isOrcaToolCall(name, callId) || CodexToolApprovalSchema.safeParse(input).success;
}

/**
 * orca's tools for an external agent (Report, Remember, and the tools that replace its own), as
 * an MCP server on loopback: streamable HTTP, stateless (a server per request), each request
 * carrying the session's bearer token, so no other process on the host can Report for it. It
 * listens before its session exists (the agent starts ahead of it, agentStart.ts): its tools are
 * the session's once bound, and a request before then waits for them.
 */
export async function startOrcaMcp(tools: Promise<McpTools>): Promise<OrcaMcpEndpoint> {
  const token = randomBytes(24).toString('hex');
  const http = createServer((req, res) => {
    void answer(req, res, token, tools).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(error instanceof Error ? error.message : String(error));
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    headers: [{ name: 'Authorization', value: `Bearer ${token}` }],
    close: () => closeServer(http),
  };
}

async function answer(req: IncomingMessage, res: ServerResponse, token: string, bound: Promise<McpTools>): Promise<void> {
  if (!authorized(req.headers.authorization, token)) {
    res.writeHead(401, { 'content-type': 'text/plain' }).end('orca MCP: this session’s bearer token is required');
    return;
  }
  if (req.method !== 'POST') {
    // Stateless: no server-sent stream to open, no session to end.
    res.writeHead(405, { allow: 'POST' }).end();
    return;
  }
  const { tools, call } = await bound;
  const server = new McpServer({ name: ORCA_MCP_NAME, version: '1' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const result = await call(request.params.name, request.params.arguments ?? {});
    return { content: [{ type: 'text' as const, text: result.content }], isError: result.isError };
  });
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res);
}

function authorized(header: string | undefined, token: string): boolean {
  const expected = Buffer.from(`Bearer ${token}`);
  const given = Buffer.from(header ?? '');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function closeServer(http: Server): Promise<void> {
  http.closeAllConnections();
  return new Promise((resolve, reject) => http.close((error) => (error ? reject(error) : resolve())));
}
