import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  ApplyWorkspaceEditRequest,
  CancellationTokenSource,
  ConfigurationRequest,
  createProtocolConnection,
  type Diagnostic,
  DidChangeTextDocumentNotification,
  DidCloseTextDocumentNotification,
  DidOpenTextDocumentNotification,
  ExecuteCommandRequest,
  ExitNotification,
  InitializedNotification,
  InitializeRequest,
  type ProtocolConnection,
  type ProtocolRequestType,
  type ProtocolRequestType0,
  PublishDiagnosticsNotification,
  RegistrationRequest,
  ShowMessageRequest,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
  UnregistrationRequest,
  WorkDoneProgressCreateRequest,
  WorkspaceFoldersRequest,
} from 'vscode-languageserver-protocol/node';
import type { LanguageServerSpec } from './languageServers.js';
import { launchServer, processTree, type ServerLaunch, type ServerProcess, waitUntilGone } from './serverProcess.js';
import { tsserverDiagnostics } from './tsserverDiagnostics.js';

export interface ServerLimits {
  /** Start and `initialize`, and the first diagnostics (a project loads then). */
  startMs: number;
  /** Any later request or wait. */
  requestMs: number;
  /** Documents kept open at once; the least recently used is closed past this. */
  maxOpenDocuments: number;
}

/** A request that got no answer in time; the server stays up and may answer the next one. */
export class ServerTimeout extends Error {
  override readonly name = 'ServerTimeout';
}

interface OpenDocument {
  uri: string;
  languageId: string;
  version: number;
  text: string;
  /** `pushSeq` when this version was sent, to tell a later push from an earlier one. */
  sentAt: number;
}

interface Pushed {
  version: number | undefined;
  seq: number;
  diagnostics: Diagnostic[];
}

const SHUTDOWN_MS = 2_000;
/** How long the processes below a killed server get to be gone (they die with it, once the kernel gets to them). */
const KILLED_TREE_MS = 5_000;

/**
 * One language server for one workspace, spoken to over JSON-RPC with vscode-languageserver-protocol.
 * It keeps the documents it has open in sync with the text it is given (whole-text changes,
 * versioned), remembers what the server pushed, and asks for diagnostics in the way its spec
 * says. Every request has a deadline and honours the caller's AbortSignal; a server that exits is
 * `gone`, with its exit and the end of its stderr, and every later call fails saying so.
 */
export class LanguageServer {
  private readonly docs = new Map<string, OpenDocument>();
  private readonly pushed = new Map<string, Pushed>();
  private waiters: Array<() => void> = [];
  /** Requests in flight, failed at once when the server goes. */
  private readonly goneListeners = new Set<() => void>();
  private pushSeq = 0;
  private goneWith: string | undefined;
  private exitedWith: string | undefined;
  private tsVersion: { version: string; source: string } | undefined;
  /** Set once the first diagnostics came back: the project is loaded. */
  private warm = false;
  /** Counts every change the server was told of (or that may have happened on disk): asked-for diagnostics are good until it moves. */
  private generation = 0;
  private readonly fetched = new Map<string, { generation: number; diagnostics: Diagnostic[] }>();

  private constructor(
    readonly spec: LanguageServerSpec,
    readonly root: string,
    private readonly proc: ServerProcess,
    private readonly connection: ProtocolConnection,
    private readonly limits: ServerLimits,
  ) {}

  /** Starts the server in `launch` and completes `initialize`; throws saying why it could not. */
  static async start(spec: LanguageServerSpec, launch: ServerLaunch, limits: ServerLimits): Promise<LanguageServer> {
    const script = spec.script();
    const proc = await launchServer(script, spec.args, launch);
    const connection = createProtocolConnection(new StreamMessageReader(proc.stdout), new StreamMessageWriter(proc.stdin));
    const server = new LanguageServer(spec, launch.cwd, proc, connection, limits);
    server.listen();
    try {
      const rootUri = pathToFileURL(launch.cwd).href;
      await server.request(
        InitializeRequest.type,
        {
          // Inside the sandbox's pid namespace this process's pid means nothing (a server that
          // watches it would exit at once); its group is tied to this process instead.
          processId: proc.sandboxed ? null : process.pid,
          rootUri,
          workspaceFolders: [{ uri: rootUri, name: 'workspace' }],
          initializationOptions: spec.initializationOptions(),
          capabilities: {
            general: { positionEncodings: ['utf-16'] },
            workspace: { configuration: true, workspaceFolders: true },
            textDocument: {
              synchronization: { dynamicRegistration: false, didSave: false },
              publishDiagnostics: { versionSupport: true },
              hover: { contentFormat: ['plaintext', 'markdown'] },
              definition: { linkSupport: false },
              references: {},
              documentSymbol: { hierarchicalDocumentSymbolSupport: true },
            },
          },
        },
        limits.startMs,
      );
      await connection.sendNotification(InitializedNotification.type, {});
      return server;
    } catch (error) {
      await server.stop();
      // Once it is stopped its exit is known: a server that died at start is best described by how it exited.
      const why = server.exitedWith ?? (error instanceof Error ? error.message : String(error));
      throw new Error(`${why}${server.stderrNote()}`);
    }
  }

  /** The server's version and where its compiler comes from, when it said ("TypeScript 5.9.3, the project's"). */
  get detail(): string | undefined {
    if (!this.tsVersion) return this.spec.describe?.();
    const whose = this.tsVersion.source === 'workspace' ? "the project's" : "orca's own: the project has none";
    return `${this.spec.label} ${this.tsVersion.version}, ${whose}`;
  }

  /** Why it is no longer usable, once it exited or its connection broke. */
  get gone(): string | undefined {
    return this.goneWith;
  }

  /** The open documents, least recently used first. */
  openDocuments(): string[] {
    return [...this.docs.keys()];
  }

  /** The URI the server knows `file` by. */
  uriOf(file: string): string {
    return this.docs.get(file)?.uri ?? pathToFileURL(file).href;
  }

  textOf(file: string): string | undefined {
    return this.docs.get(file)?.text;
  }

  /** Opens `file` with `text`, or sends the new text if it changed; marks it most recently used. */
  async sync(file: string, languageId: string, text: string): Promise<void> {
    this.ensureUp();
    const known = this.docs.get(file);
    if (known) {
      this.docs.delete(file);
      this.docs.set(file, known);
      if (known.text === text) return;
      this.generation += 1;
      known.version += 1;
      known.text = text;
      known.sentAt = this.pushSeq;
      await this.connection.sendNotification(DidChangeTextDocumentNotification.type, {
        textDocument: { uri: known.uri, version: known.version },
        contentChanges: [{ text }],
      });
      return;
    }
    const doc: OpenDocument = { uri: pathToFileURL(file).href, languageId, version: 1, text, sentAt: this.pushSeq };
    this.generation += 1;
    this.docs.set(file, doc);
    await this.connection.sendNotification(DidOpenTextDocumentNotification.type, {
      textDocument: { uri: doc.uri, languageId, version: doc.version, text },
    });
    for (const [oldest, old] of this.docs) {
      if (this.docs.size <= this.limits.maxOpenDocuments) break;
      if (oldest === file) continue;
      this.docs.delete(oldest);
      this.pushed.delete(oldest);
      this.fetched.delete(oldest);
      await this.connection.sendNotification(DidCloseTextDocumentNotification.type, { textDocument: { uri: old.uri } });
    }
  }

  /** The server's diagnostics for the open document `file` as last synced. */
  async diagnostics(file: string, signal?: AbortSignal): Promise<Diagnostic[]> {
    const doc = this.docs.get(file);
    if (!doc) throw new Error(`${file} is not open in the ${this.spec.label} language server`);
    const timeoutMs = this.warm ? this.limits.requestMs : this.limits.startMs;
    let found: Diagnostic[];
    if (this.spec.diagnostics === 'tsserver') {
      const cached = this.fetched.get(file);
      if (cached?.generation === this.generation) return cached.diagnostics;
      const generation = this.generation;
      const ask = (command: string) =>
        this.request(
          ExecuteCommandRequest.type,
          { command: 'typescript.tsserverRequest', arguments: [command, { file }] },
          timeoutMs,
          signal,
        ).then((answer) => tsserverDiagnostics(answer, `${command} for ${file}`));
      const [syntactic, semantic] = await Promise.all([ask('syntacticDiagnosticsSync'), ask('semanticDiagnosticsSync')]);
      found = [...syntactic, ...semantic];
      this.fetched.set(file, { generation, diagnostics: found });
    } else {
      found = await this.until(() => this.pushedFor(file, doc)?.diagnostics, timeoutMs, signal, `diagnostics for ${file}`);
    }
    this.warm = true;
    return found;
  }

  /**
   * For push servers: what the server pushed for each of `files` after `since` (a `mark()`), waiting
   * up to `settleMs` for the ones it has not reported yet (a change elsewhere may take a moment to
   * reach them). Files it said nothing more about are left out.
   */
  async pushedSince(files: readonly string[], since: number, settleMs: number, signal?: AbortSignal): Promise<Map<string, Diagnostic[]>> {
    const fresh = () => files.filter((file) => (this.pushed.get(file)?.seq ?? -1) > since);
    if (fresh().length < files.length) {
      await this.until(() => (fresh().length === files.length ? true : undefined), settleMs, signal, 'diagnostics').catch((error) => {
        if (!(error instanceof ServerTimeout)) throw error;
      });
    }
    return new Map(fresh().map((file) => [file, this.pushed.get(file)!.diagnostics]));
  }

  /** What a push server last pushed for the version of `file` it has, if it did. */
  currentDiagnostics(file: string): Diagnostic[] | undefined {
    const doc = this.docs.get(file);
    return doc ? this.pushedFor(file, doc)?.diagnostics : undefined;
  }

  /** Files may have changed behind the server's back (a command ran): asked-for diagnostics are asked for again. */
  invalidate(): void {
    this.generation += 1;
  }

  /** A point in the stream of pushes, for `pushedSince`. */
  mark(): number {
    return this.pushSeq;
  }

  /** One request, with the request deadline (the start deadline until the project is loaded). */
  send<P, R, E, RO>(type: ProtocolRequestType<P, R, unknown, E, RO>, params: P, signal?: AbortSignal): Promise<R> {
    return this.request(type, params, this.warm ? this.limits.requestMs : this.limits.startMs, signal);
  }

  /** Asks it to shut down, then kills its process group whatever it did; resolves once nothing of it runs. */
  async stop(): Promise<void> {
    // Taken first: once the server exits, what it started is no longer found below it.
    const tree = processTree(this.proc.group.pgid);
    if (this.goneWith === undefined) {
      this.goneWith = 'it was stopped';
      // A server that does not answer shutdown in time is killed below all the same.
      await this.request(ShutdownRequest.type, undefined, SHUTDOWN_MS)
        .then(() => this.connection.sendNotification(ExitNotification.type))
        .catch(() => undefined);
      await Promise.race([this.proc.group.exited, new Promise((resolve) => setTimeout(resolve, SHUTDOWN_MS).unref())]);
    }
    await this.proc.group.kill();
    await this.proc.group.exited;
    this.connection.dispose();
    // What ran in a sandbox of its own (bwrap's session) dies with bwrap, a moment later: wait for it.
    const left = await waitUntilGone(tree, KILLED_TREE_MS);
    if (left.length > 0)
      throw new Error(`the ${this.spec.label} language server's processes ${left.join(', ')} are still running after it was killed`);
  }

  private pushedFor(file: string, doc: OpenDocument): Pushed | undefined {
    const pushed = this.pushed.get(file);
    if (!pushed) return undefined;
    const current = pushed.version !== undefined ? pushed.version >= doc.version : pushed.seq > doc.sentAt;
    return current ? pushed : undefined;
  }

  private listen(): void {
    const { connection } = this;
    connection.onNotification(PublishDiagnosticsNotification.type, (params) => {
      const file = filePathOf(params.uri);
      if (file === undefined) return;
      this.pushSeq += 1;
      this.pushed.set(file, { version: params.version ?? undefined, seq: this.pushSeq, diagnostics: params.diagnostics });
      this.wake();
    });
    connection.onNotification('$/typescriptVersion', (params: { version?: unknown; source?: unknown }) => {
      if (typeof params.version === 'string') this.tsVersion = { version: params.version, source: String(params.source ?? '') };
    });
    connection.onRequest(ConfigurationRequest.type, (params) => params.items.map((item) => this.spec.configuration(item.section)));
    connection.onRequest(WorkspaceFoldersRequest.type, () => [{ uri: pathToFileURL(this.root).href, name: 'workspace' }]);
    connection.onRequest(RegistrationRequest.type, () => undefined);
    connection.onRequest(UnregistrationRequest.type, () => undefined);
    connection.onRequest(WorkDoneProgressCreateRequest.type, () => undefined);
    connection.onRequest(ShowMessageRequest.type, () => null);
    // orca changes files only through its own tools: a server's edit is never applied.
    connection.onRequest(ApplyWorkspaceEditRequest.type, () => ({ applied: false, failureReason: 'orca does not apply server edits' }));
    connection.onClose(() => this.fail('its connection closed'));
    connection.onError(([error]) => this.fail(`its connection failed (${error.message})`));
    void this.proc.group.exited.then(({ code, signal }) => {
      this.exitedWith = `it exited (${signal ?? `exit code ${code}`})`;
      this.fail(this.exitedWith);
    });
    connection.listen();
  }

  private fail(why: string): void {
    this.goneWith ??= why;
    this.wake();
    for (const listener of this.goneListeners) listener();
  }

  private wake(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  private ensureUp(): void {
    if (this.goneWith !== undefined)
      throw new Error(`the ${this.spec.label} language server is gone: ${this.goneWith}${this.stderrNote()}`);
  }

  private stderrNote(): string {
    const tail = this.proc.stderrTail();
    return tail ? `; it said: ${tail.slice(-600)}` : '';
  }

  /** Resolves with `value()` once it is defined, re-checked on every push, within `ms`. */
  private until<T>(value: () => T | undefined, ms: number, signal: AbortSignal | undefined, what: string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      let settled = false;
      const done = (settle: () => void) => {
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        settle();
      };
      const onAbort = () => done(() => reject(new Error(`the wait for ${what} was aborted`)));
      const check = () => {
        if (settled) return;
        if (this.goneWith !== undefined) {
          done(() => reject(new Error(`the ${this.spec.label} language server is gone: ${this.goneWith}${this.stderrNote()}`)));
          return;
        }
        const found = value();
        if (found !== undefined) done(() => resolve(found));
        else this.waiters.push(check);
      };
      timer = setTimeout(() => {
        this.waiters = this.waiters.filter((waiter) => waiter !== check);
        done(() => reject(new ServerTimeout(`the ${this.spec.label} language server sent no ${what} within ${ms} ms`)));
      }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
      if (signal?.aborted) onAbort();
      else check();
    });
  }

  private async request<P, R, E, RO>(
    type: ProtocolRequestType<P, R, unknown, E, RO> | ProtocolRequestType0<R, unknown, E, RO>,
    params: P,
    ms: number,
    signal?: AbortSignal,
  ): Promise<R> {
    if (type.method !== ShutdownRequest.method) this.ensureUp();
    const cancel = new CancellationTokenSource();
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    let onGone: (() => void) | undefined;
    const stopped = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        cancel.cancel();
        reject(new ServerTimeout(`the ${this.spec.label} language server did not answer ${type.method} within ${ms} ms`));
      }, ms);
      onAbort = () => {
        cancel.cancel();
        reject(new Error(`${type.method} was aborted`));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      if (signal?.aborted) onAbort();
      onGone = () => reject(new Error(`the ${this.spec.label} language server is gone: ${this.goneWith}${this.stderrNote()}`));
      this.goneListeners.add(onGone);
    });
    try {
      const sent =
        'numberOfParams' in type && type.numberOfParams === 0
          ? this.connection.sendRequest(type as ProtocolRequestType0<R, unknown, E, RO>, cancel.token)
          : this.connection.sendRequest(type as ProtocolRequestType<P, R, unknown, E, RO>, params as never, cancel.token);
      return await Promise.race([sent, stopped]);
    } finally {
      clearTimeout(timer);
      if (onAbort) signal?.removeEventListener('abort', onAbort);
      if (onGone) this.goneListeners.delete(onGone);
      cancel.dispose();
    }
  }
}

function filePathOf(uri: string): string | undefined {
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined; // not a file: URI (an untitled buffer, a virtual document): nothing orca opened
  }
}
