import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { asksToLogIn, envLoginMethod } from './agentLogin.js';
import { type AgentLaunch, type AgentProcess, launchAgentProcess } from './agentSandbox.js';
import { lateClient } from './lateClient.js';
import { type McpTools, type OrcaMcpEndpoint, startOrcaMcp } from './orcaMcpServer.js';

/** An agent that answered `initialize`: its process, the protocol's connection to it, and orca's MCP server for it. */
export interface InitializedAgent {
  agent: AgentProcess;
  connection: acp.ClientSideConnection;
  mcp: OrcaMcpEndpoint;
  /** How it says it can be logged in (its `initialize` answer): used when it refuses a session until then. */
  authMethods?: acp.AuthMethod[];
}

/** What the session binds when it begins: the ACP client that answers the agent, and orca's tools over MCP. */
export interface SessionBinding {
  client: acp.Client;
  tools: McpTools;
}

/**
 * An external agent started ahead of its session, so that its own start (its process in the
 * sandbox, `initialize`, then `session/new`, where Claude Code starts) runs while the job builds
 * the rest of the session rather than after it (docs/agents.md, "When it starts"). orca's MCP
 * server listens from the first moment, since its port is one of the agent's proxy's two rules;
 * its tools and the client's answers are the session's, bound when the session begins: whatever
 * the agent asks before that waits for it. Closed once, whichever of the job and the session
 * closes it first: its process group, its proxy and the MCP server go.
 */
export class AgentStart {
  readonly initialized: Promise<InitializedAgent>;
  private readonly binding: Promise<SessionBinding>;
  private bindNow!: (binding: SessionBinding) => void;
  private opened?: Promise<string>;
  private closing?: Promise<void>;
  private closed = false;
  /** Its cgroup frozen (hold): its close ends it with SIGKILL, giving it no moment to run again. */
  private frozen = false;
  private agent?: AgentProcess;
  private mcp?: OrcaMcpEndpoint;
  private readonly gone: Promise<never>;
  private stop!: (why: Error) => void;

  constructor(private readonly launch: Omit<AgentLaunch, 'mcpUrl'>) {
    this.binding = new Promise((resolve) => {
      this.bindNow = resolve;
    });
    this.gone = new Promise<never>((_, reject) => {
      this.stop = reject;
    });
    this.gone.catch(() => undefined);
    this.initialized = this.begin();
    this.initialized.catch(() => undefined);
  }

  /** The agent's stderr so far, for the line a failed start gets. */
  stderrTail(): string | undefined {
    return this.agent?.stderrTail();
  }

  /** The session's client and tools: what the agent asked for until now is answered from here on. */
  bind(binding: SessionBinding): void {
    this.bindNow(binding);
  }

  /**
   * `session/new`, once, as soon as the agent is initialized; its session id. An agent that
   * refuses it until it is logged in (ACP's `auth_required`: Codex given an API key but no login
   * file) is asked to log in from its environment (agentLogin.ts), then asked again, once.
   */
  openSession(request: acp.NewSessionRequest): Promise<string> {
    this.opened ??= this.initialized.then(async ({ agent, connection, authMethods }) => {
      try {
        return (await this.race(connection.newSession(request))).sessionId;
      } catch (error) {
        if (!asksToLogIn(error)) throw error;
        const methodId = envLoginMethod(this.launch.agent.name, authMethods, (name) => agent.hasEnv(name));
        await this.race(connection.authenticate({ methodId }));
        return (await this.race(connection.newSession(request))).sessionId;
      }
    });
    this.opened.catch(() => undefined);
    return this.opened;
  }

  /** A request raced against the agent's end and this start's close: one it will never answer is not waited on. */
  race<T>(work: Promise<T>): Promise<T> {
    return Promise.race([work, this.gone]);
  }

  /**
   * Holds the agent where it is (its cgroup frozen: docs/agents.md) while its turn's end is
   * judged, so that nothing of it writes its worktree between the look that judges its Report and
   * its close, or its next prompt: resolves with how to let it go on again. Undefined where it runs
   * without a cgroup of its own (docs/security.md#processes) or the kernel has no freezer: then
   * nothing holds it, and the commit's look after its close is what takes its tree.
   */
  async hold(): Promise<{ release: () => Promise<void> } | undefined> {
    const cgroup = this.agent?.group.cgroup;
    if (!cgroup || this.closed || !(await cgroup.freeze())) return undefined;
    this.frozen = true;
    return {
      release: async () => {
        await cgroup.thaw();
        this.frozen = false;
      },
    };
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      this.closed = true;
      this.stop(new Error('the agent was closed'));
      // A start under way stops at its next step (its initialize is raced against this close); then
      // whatever it made goes: its whole process tree, however the job or the session ended.
      await this.initialized.catch(() => undefined);
      // Held: killed as it is, never thawed, so no handler of its runs (a SIGTERM's would, and could write).
      if (this.frozen) await this.agent?.group.cgroup?.kill();
      await this.agent?.close();
      await this.mcp?.close();
    })();
    return this.closing;
  }

  private async begin(): Promise<InitializedAgent> {
    const mcp = await startOrcaMcp(this.binding.then((bound) => bound.tools));
    this.mcp = mcp;
    if (this.closed) throw new Error('the agent was closed before it started');
    const agent = await launchAgentProcess({ ...this.launch, mcpUrl: mcp.url });
    this.agent = agent;
    if (this.closed) throw new Error('the agent was closed before it started');
    agent.group.exited.then(
      (exit) => this.stop(new Error(`its process ended (${exit.signal ?? `exit ${exit.code}`})`)),
      () => undefined,
    );
    const stream = acp.ndJsonStream(
      Writable.toWeb(agent.stdin as Writable) as WritableStream<Uint8Array>,
      Readable.toWeb(agent.stdout as Readable) as ReadableStream<Uint8Array>,
    );
    const connection = new acp.ClientSideConnection(() => lateClient(this.binding.then((bound) => bound.client)), stream);
    const answer = await this.race(
      connection.initialize({
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
        clientInfo: { name: 'orca', version: '1' },
      }),
    );
    return { agent, connection, mcp, authMethods: answer.authMethods };
  }
}
