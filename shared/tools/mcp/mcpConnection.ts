import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, Tool as McpToolSpec } from '@modelcontextprotocol/sdk/types.js';
import { GroupStdioTransport } from './groupStdioTransport.js';
import { isStdioServer, type McpServerConfig, type RemoteServerConfig } from './mcpConfig.js';

export interface McpLimits {
  /** Start and `initialize`, and the tool list. */
  startMs: number;
  /** One tool call. */
  callMs: number;
}

export const DEFAULT_MCP_LIMITS: McpLimits = { startMs: 30_000, callMs: 300_000 };

const CLIENT_INFO = { name: 'orca', version: '0.1.0' };

/**
 * One running MCP server, spoken to through the official SDK's Client: its tools (every page of
 * `tools/list`), its instructions, and tool calls with the caller's AbortSignal and a deadline.
 * A server whose transport closes (its process exited, the HTTP session ended) is `gone`, with
 * why; calls in flight then fail and later ones are refused, saying so.
 */
export class McpConnection {
  private goneWith: string | undefined;
  private closing = false;

  private constructor(
    readonly name: string,
    private readonly client: Client,
    private readonly transport: Transport,
    readonly tools: McpToolSpec[],
    readonly instructions: string | undefined,
    private readonly limits: McpLimits,
  ) {}

  /** Starts (or connects to) the server and lists its tools; throws saying why it could not. */
  static async open(
    name: string,
    config: McpServerConfig,
    options: { cwd: string; env: NodeJS.ProcessEnv; limits: McpLimits },
  ): Promise<McpConnection> {
    const transport = transportFor(config, options);
    const client = new Client(CLIENT_INFO, { capabilities: {} });
    let connection: McpConnection | undefined;
    let early: string | undefined;
    transport.onclose = () => {
      const why = closeReason(transport);
      if (connection) connection.markGone(why);
      else early = why;
    };
    try {
      await client.connect(transport, { timeout: options.limits.startMs });
      const tools: McpToolSpec[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor ? { cursor } : {}, { timeout: options.limits.startMs });
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor);
      connection = new McpConnection(name, client, transport, tools, client.getInstructions(), options.limits);
      // Connected, yet its transport was already gone by the time the tools were listed.
      if (early) connection.markGone(early);
      return connection;
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      await transport.close().catch(() => undefined);
      const stderr = transport instanceof GroupStdioTransport ? transport.stderrTail() : '';
      throw new Error(`${early ? `${early}; ` : ''}${detail}${stderr ? ` (stderr: ${stderr.slice(-300)})` : ''}`);
    }
  }

  /** Why the server is not running any more, once it is not. */
  get gone(): string | undefined {
    return this.goneWith;
  }

  /** The process group of a stdio server (for tests and the transcript). */
  get pgid(): number | undefined {
    return this.transport instanceof GroupStdioTransport ? this.transport.pgid : undefined;
  }

  async callTool(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> {
    if (this.goneWith) throw new Error(`the server is not running: ${this.goneWith}`);
    try {
      return (await this.client.callTool({ name: tool, arguments: args }, undefined, {
        signal,
        timeout: this.limits.callMs,
      })) as CallToolResult;
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      // The call failed because the server went away under it: say that, not the SDK's wording alone.
      if (this.goneWith) throw new Error(`the server stopped during the call (${this.goneWith}): ${detail}`);
      throw error;
    }
  }

  /** Stops the server (a stdio server's whole process group) or ends the HTTP session. */
  async close(): Promise<void> {
    this.closing = true;
    this.goneWith ??= 'it was stopped';
    // An HTTP server keeps a session until told it is over (a DELETE); one that cannot be told is left to expire it.
    if (this.transport instanceof StreamableHTTPClientTransport) await this.transport.terminateSession().catch(() => undefined);
    await this.client.close();
    await this.transport.close();
  }

  private markGone(why: string): void {
    if (this.closing) return;
    this.goneWith ??= why;
  }
}

function transportFor(config: McpServerConfig, options: { cwd: string; env: NodeJS.ProcessEnv }): Transport {
  if (isStdioServer(config)) {
    return new GroupStdioTransport({
      command: config.command,
      args: config.args,
      cwd: options.cwd,
      env: { ...options.env, ...config.env },
    });
  }
  const remote = config as RemoteServerConfig;
  const url = new URL(remote.url);
  const requestInit = { headers: remote.headers };
  return remote.type === 'sse' ? new SSEClientTransport(url, { requestInit }) : new StreamableHTTPClientTransport(url, { requestInit });
}

function closeReason(transport: Transport): string {
  if (transport instanceof GroupStdioTransport) {
    const stderr = transport.stderrTail();
    return `its process ${transport.exit ?? 'ended'}${stderr ? ` (stderr: ${stderr.slice(-300)})` : ''}`;
  }
  return 'the connection closed';
}
