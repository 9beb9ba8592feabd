import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { type ProcessGroup, spawnGroup } from '../../core/runtime/processGroup.js';

/** How much of a server's stderr is kept to say why it died. */
const STDERR_TAIL = 2_000;

export interface StdioLaunch {
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/**
 * The MCP stdio transport over a process group of orca's own (processGroup.ts) instead of the
 * SDK's plain child process: killing the group stops the server and whatever it started, the
 * worker's shutdown and its watchdog reach it like any agent command, and nothing it spawned can
 * outlive the agent. The framing is the SDK's (ReadBuffer, serializeMessage).
 */
export class GroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private group?: ProcessGroup;
  private readonly buffer = new ReadBuffer();
  private stderr = '';
  /** How the server's process ended, once it has. */
  exit?: string;

  constructor(private readonly launch: StdioLaunch) {}

  get pgid(): number | undefined {
    return this.group?.pgid;
  }

  /** The last of what the server wrote to stderr, on one line. */
  stderrTail(): string {
    return this.stderr.replace(/\s+/g, ' ').trim();
  }

  async start(): Promise<void> {
    const { command, args, cwd, env } = this.launch;
    // A server the user configured runs as in Claude Code: its process group, no agent cgroup.
    const group = await spawnGroup(command, args, { cwd, env, keepStdinOpen: true, cgroup: false });
    this.group = group;
    const { child } = group;
    child.stdout.on('data', (chunk: Buffer) => {
      this.buffer.append(chunk);
      for (;;) {
        let message: JSONRPCMessage | null;
        try {
          message = this.buffer.readMessage();
        } catch (error) {
          this.onerror?.(error instanceof Error ? error : new Error(String(error)));
          continue;
        }
        if (message === null) break;
        this.onmessage?.(message);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString('utf8')).slice(-STDERR_TAIL);
    });
    void group.exited.then(({ code, signal }) => {
      this.exit = signal ? `killed by ${signal}` : `exited with code ${code}`;
      // Its children die with it: a server is one unit.
      void group.kill().catch((error: unknown) => this.onerror?.(error instanceof Error ? error : new Error(String(error))));
      this.onclose?.();
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.group?.child.stdin;
    if (!stdin || this.exit !== undefined) throw new Error(`the server is not running (${this.exit ?? 'not started'})`);
    if (!stdin.write(serializeMessage(message))) await new Promise<void>((resolve) => stdin.once('drain', () => resolve()));
  }

  /** Stops the server's whole process group; resolves once none of its processes is left. */
  async close(): Promise<void> {
    const group = this.group;
    if (!group) return;
    group.child.stdin?.end();
    await group.kill();
  }
}
