import { isStdioServer, type McpServerConfig } from './mcpConfig.js';
import type { McpConnection, McpLimits } from './mcpConnection.js';

interface PoolEntry {
  opening: Promise<McpConnection>;
  users: number;
}

export interface McpLease {
  connection: McpConnection;
  /** Gives the server back; the last user's release stops it. Idempotent. */
  release(): Promise<void>;
}

/**
 * The MCP servers running in this process, shared by the agents that use the same server with the
 * same definition (and, for a stdio server, the same working folder): a second agent leases the
 * running server instead of starting another. A server is stopped when its last agent releases
 * it, so none outlives the agents that use it; one that died is dropped and started afresh by the
 * next agent that asks.
 */
export class McpPool {
  private readonly entries = new Map<string, PoolEntry>();

  async acquire(
    name: string,
    config: McpServerConfig,
    options: { cwd: string; env: NodeJS.ProcessEnv; limits?: Partial<McpLimits> },
  ): Promise<McpLease> {
    const key = JSON.stringify({ name, config, cwd: isStdioServer(config) ? options.cwd : undefined });
    let entry = this.entries.get(key);
    if (entry) {
      const running = await entry.opening.catch(() => undefined);
      if (!running || running.gone !== undefined) {
        if (this.entries.get(key) === entry) this.entries.delete(key);
        entry = undefined;
      }
    }
    if (!entry) {
      // The MCP SDK (about 17 MB of a worker's memory) loads with the first server an agent uses.
      const opening = import('./mcpConnection.js').then(({ DEFAULT_MCP_LIMITS, McpConnection }) =>
        McpConnection.open(name, config, {
          cwd: options.cwd,
          env: options.env,
          limits: { ...DEFAULT_MCP_LIMITS, ...options.limits },
        }),
      );
      entry = { opening, users: 0 };
      this.entries.set(key, entry);
      opening.catch(() => {
        if (this.entries.get(key) === entry) this.entries.delete(key);
      });
    }
    entry.users += 1;
    const held = entry;
    let connection: McpConnection;
    try {
      connection = await held.opening;
    } catch (error) {
      held.users -= 1;
      throw error;
    }
    let released = false;
    return {
      connection,
      release: async () => {
        if (released) return;
        released = true;
        held.users -= 1;
        if (held.users > 0) return;
        if (this.entries.get(key) === held) this.entries.delete(key);
        await connection.close();
      },
    };
  }

  /** How many servers are running or starting (for tests). */
  get size(): number {
    return this.entries.size;
  }
}

/** The process's pool: a worker's agents share it. */
export const mcpPool = new McpPool();
