import { readFileSync } from 'node:fs';
import type { AnyTool } from '../../core/tool/tool.js';
import { expandServerConfig, McpConfigError } from './mcpConfig.js';
import type { McpLimits } from './mcpConnection.js';
import { type McpLease, type McpPool, mcpPool } from './mcpPool.js';
import type { McpSelection } from './mcpSelection.js';
import { mcpTool } from './mcpTool.js';
import { MAX_TOOL_NAME, mcpServerPrefix } from './mcpToolName.js';

const INTRO = readFileSync(new URL('./mcp-servers.md', import.meta.url), 'utf8').trim();

export interface RunningServer {
  name: string;
  lease: McpLease;
  tools: AnyTool[];
}

/**
 * The MCP servers of one agent: started (or leased from the worker's pool, when another agent
 * runs the same one) when the agent starts, their tools as orca tools, their instructions for the
 * dynamic part of the prompt, and given back when it ends. A server that cannot start is one line
 * in `problems` and in the prompt; the agent goes on without its tools.
 */
export class McpServers {
  /** One line per server that was refused or could not start, for the transcript. */
  readonly problems: string[] = [];
  private released = false;

  private constructor(
    readonly running: RunningServer[],
    /** Servers the role names that are not running, and why: the agent is told. */
    readonly notRunning: Array<{ name: string; reason: string }>,
  ) {
    for (const { name, reason } of notRunning) this.problems.push(`MCP server "${name}" is not available: ${reason}`);
  }

  static none(): McpServers {
    return new McpServers([], []);
  }

  static async start(options: {
    selection: McpSelection;
    cwd: string;
    env: NodeJS.ProcessEnv;
    pool?: McpPool;
    limits?: Partial<McpLimits>;
  }): Promise<McpServers> {
    const pool = options.pool ?? mcpPool;
    const notRunning = [...options.selection.refused];
    const started = await Promise.all(
      options.selection.start.map(async (entry) => {
        try {
          const config = expandServerConfig(entry, options.env);
          const lease = await pool.acquire(entry.name, config, { cwd: options.cwd, env: options.env, limits: options.limits });
          return { name: entry.name, lease };
        } catch (error) {
          const why =
            error instanceof McpConfigError
              ? error.message
              : `it could not start: ${error instanceof Error ? error.message : String(error)}`;
          notRunning.push({ name: entry.name, reason: `${why}; its tools are unavailable` });
          return undefined;
        }
      }),
    );
    const names = new Set<string>();
    const skipped: string[] = [];
    const running: RunningServer[] = [];
    for (const server of started) {
      if (!server) continue;
      const tools: AnyTool[] = [];
      for (const spec of server.lease.connection.tools) {
        const tool = mcpTool(server.name, spec, server.lease.connection);
        if (names.has(tool.name) || tool.name.length > MAX_TOOL_NAME) {
          skipped.push(tool.name);
          continue;
        }
        names.add(tool.name);
        tools.push(tool);
      }
      running.push({ name: server.name, lease: server.lease, tools });
    }
    const servers = new McpServers(running, notRunning);
    if (skipped.length > 0) {
      servers.problems.push(
        `MCP tools left out, their names taken already or longer than the API's ${MAX_TOOL_NAME} characters: ${skipped.join(', ')}`,
      );
    }
    return servers;
  }

  tools(): AnyTool[] {
    return this.running.flatMap((server) => server.tools);
  }

  /** The servers' part of the dynamic prompt: which run, their instructions, which are not available and why. */
  promptSection(): string | undefined {
    if (this.running.length === 0 && this.notRunning.length === 0) return undefined;
    const parts = [INTRO];
    for (const server of this.running) {
      const instructions = server.lease.connection.instructions?.trim();
      parts.push(
        `## ${server.name}\n\n${server.tools.length} tools (\`${mcpServerPrefix(server.name)}…\`).${instructions ? `\n\n${instructions}` : ''}`,
      );
    }
    if (this.notRunning.length > 0) {
      parts.push(`## Not available\n\n${this.notRunning.map(({ name, reason }) => `- ${name}: ${reason}`).join('\n')}`);
    }
    return parts.join('\n\n');
  }

  /** Gives every server back to the pool (the last agent's release stops it); resolves once they are stopped. */
  async close(): Promise<void> {
    if (this.released) return;
    this.released = true;
    const results = await Promise.allSettled(this.running.map((server) => server.lease.release()));
    const failures = results.flatMap((result) => (result.status === 'rejected' ? [result.reason as unknown] : []));
    if (failures.length > 0) throw new AggregateError(failures, `${failures.length} MCP server(s) could not be stopped`);
  }
}
