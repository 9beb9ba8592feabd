import { agentShellEnv } from '../../core/runtime/agentEnv.js';
import type { ToolContext } from '../../core/tool/tool.js';
import { LANGUAGE_SERVERS, type LanguageServerSpec } from './languageServers.js';
import { documentFor, type LspDocument } from './lspDocument.js';
import type { LanguageServer, ServerLimits } from './lspServer.js';

declare module '../../core/tool/tool.js' {
  interface SessionServices {
    /** The session's language servers (the LSP tool, diagnostics after edits). */
    lsp?: LspService;
  }
}

export const DEFAULT_SERVER_LIMITS: ServerLimits = { startMs: 30_000, requestMs: 10_000, maxOpenDocuments: 24 };

export interface LspServiceOptions {
  servers?: readonly LanguageServerSpec[];
  /** False turns every server off (`ORCA_LSP=off`); the default reads the environment. */
  enabled?: boolean;
  limits?: Partial<ServerLimits>;
}

/** Whether the environment turns language servers off. */
export function lspEnabledByEnv(env: NodeJS.ProcessEnv = process.env): boolean {
  return !/^(off|0|false|no)$/i.test(env.ORCA_LSP ?? '');
}

/**
 * The language servers of one session, one per language, each started the first time the agent
 * touches a file of its language, in the agent's workspace, environment and sandbox
 * (serverProcess.ts), and stopped by `close()` when the session ends. A server that is not
 * installed, cannot start or dies is not started again: that is said once, as a notice and in
 * the next tool result (`takeNotes`), and the tools go on without it.
 */
export class LspService {
  readonly servers: readonly LanguageServerSpec[];
  readonly enabled: boolean;
  readonly limits: ServerLimits;
  private readonly started = new Map<string, Promise<LanguageServer | undefined>>();
  private readonly running = new Set<LanguageServer>();
  private readonly unavailable = new Map<string, string>();
  private readonly notes: string[] = [];
  private closed = false;

  constructor(options: LspServiceOptions = {}) {
    this.servers = options.servers ?? LANGUAGE_SERVERS;
    this.enabled = options.enabled ?? lspEnabledByEnv();
    this.limits = { ...DEFAULT_SERVER_LIMITS, ...options.limits };
  }

  /** `file` as its server would see it now, or undefined when no server serves it. */
  document(file: string, ctx: ToolContext, options: { missingAsEmpty?: boolean } = {}): LspDocument | undefined {
    if (!this.enabled) return undefined;
    return documentFor(file, ctx.workspace, this.servers, options);
  }

  /** The running server of `spec`, started now if it is not yet; undefined when it cannot run (said once). */
  async server(spec: LanguageServerSpec, ctx: ToolContext): Promise<LanguageServer | undefined> {
    if (!this.enabled || this.closed || this.unavailable.has(spec.id)) return undefined;
    let starting = this.started.get(spec.id);
    if (!starting) {
      // The server's module (and the LSP protocol's, ~16 MB) loads with the first server a worker starts.
      starting = import('./lspServer.js')
        .then(({ LanguageServer }) =>
          LanguageServer.start(
            spec,
            { cwd: ctx.workspace.root, env: { ...agentShellEnv(), ...ctx.shell.env }, wrap: ctx.shell.wrap },
            this.limits,
          ),
        )
        .then(
          (server) => {
            this.running.add(server);
            return server;
          },
          (error: unknown) => {
            this.markUnavailable(spec, `it could not start: ${error instanceof Error ? error.message : String(error)}`, ctx);
            return undefined;
          },
        );
      this.started.set(spec.id, starting);
    }
    const server = await starting;
    if (server?.gone !== undefined && !this.closed) {
      this.markUnavailable(spec, server.gone, ctx);
      return undefined;
    }
    return this.closed ? undefined : server;
  }

  /** Whether any server was started (or tried) in this session, running or not now. */
  get anyStarted(): boolean {
    return this.started.size > 0;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Something other than the file tools may have changed files (a command ran): servers re-check before they answer. */
  invalidate(): void {
    for (const server of this.running) server.invalidate();
  }

  /** Why `spec`'s server is not available, once it was found not to be. */
  unavailableReason(spec: LanguageServerSpec): string | undefined {
    return this.unavailable.get(spec.id);
  }

  /** What the model has not been told yet (a server that could not start), taken once. */
  takeNotes(): string[] {
    return this.notes.splice(0);
  }

  /** Stops every server this session started; resolves once none of their processes is left. */
  async close(): Promise<void> {
    this.closed = true;
    const servers = await Promise.all(this.started.values());
    const stopped = await Promise.allSettled(servers.map((server) => server?.stop()));
    const failures = stopped.flatMap((result) => (result.status === 'rejected' ? [result.reason as unknown] : []));
    if (failures.length > 0) throw new AggregateError(failures, `${failures.length} language server(s) could not be stopped`);
  }

  private markUnavailable(spec: LanguageServerSpec, why: string, ctx: ToolContext): void {
    if (this.unavailable.has(spec.id)) return;
    this.unavailable.set(spec.id, why);
    const message = `The ${spec.label} language server is not available (${why}). Edits go on without its diagnostics, and the LSP tool cannot answer for ${spec.label} files.`;
    ctx.emit({ type: 'notice', level: 'warn', message });
    this.notes.push(`[diagnostics] ${message}`);
  }
}
