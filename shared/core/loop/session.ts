import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import type { AgentEventInput } from '../events/agentEvent.js';
import { ReadFileState } from '../files/readFileState.js';
import { Workspace } from '../files/workspace.js';
import type { Message } from '../model/message.js';
import type { Model, SystemBlock } from '../model/model.js';
import { emptyUsage, type Usage } from '../model/usage.js';
import type { PermissionMode } from '../tool/permissionMode.js';
import { modeOnlySlots, type ToolPipelineSlots } from '../tool/pipeline.js';
import { type DeferredTools, ToolRegistry } from '../tool/registry.js';
import { reportTool } from '../tool/report.js';
import type { AnyTool, SessionServices, ShellSettings, ToolContext } from '../tool/tool.js';
import type { ToolFacts } from '../tool/toolFacts.js';
import { type AgentLimits, DEFAULT_LIMITS } from './limits.js';
import { budgetTokens, cacheReadWeightOf } from './tokenBudget.js';
import { ToolLedger } from './toolLedger.js';

/** What the model is sent on one call, before the model client adds its own framing. */
export interface PreparedContext {
  system: SystemBlock[];
  messages: Message[];
  cacheTools: boolean;
}

/**
 * Builds each request from the session: the prompt layers and whatever compaction the context
 * layer does. The core's default sends the role's prompt and the messages as they are.
 */
export interface ContextAssembler {
  prepare(session: AgentSession): Promise<PreparedContext>;
  /**
   * Told of every tool result, so it can react (conditional rules after a file read, …); `tool` is
   * the definition it ran with, `data` the tool's `ToolOutput.data`.
   */
  afterTool?(session: AgentSession, call: AfterToolCall): void;
  /**
   * Compacts the conversation now, whatever the thresholds say: the API has just said it does not
   * fit the model's window (`why`). The next prepare() builds the smaller view.
   */
  compactNow?(session: AgentSession, why: string): Promise<{ ok: true } | { ok: false; reason: string }>;
}

export interface AfterToolCall {
  name: string;
  tool?: ToolFacts;
  input: unknown;
  data?: unknown;
  isError: boolean;
  mayWrite: boolean;
}

export interface StopInfo {
  reason: 'report' | 'no_tool_use';
  active: boolean;
  /** The Report input the model just sent, when it is ending with one. */
  report?: unknown;
}

export interface StopCheck {
  /**
   * Called when the agent is about to end without a Report (or with one): return a message to
   * make it go on, or undefined to let it stop. `active` is true on a continuation it caused.
   */
  beforeStop(session: AgentSession, info: StopInfo): Promise<string | undefined>;
}

export interface AgentSessionOptions {
  role: string;
  model: Model;
  /** The static prompt for this role: identity, conduct, tool guidance, the role's text. */
  systemPrompt: string;
  tools: AnyTool[];
  /** Tools of `tools` whose schemas wait for a tool search (docs/mcp.md, "Deferred loading"). */
  deferredTools?: DeferredTools;
  outputSchema: z.ZodType;
  workspaceRoot: string;
  /** Where the session keeps spilled results and scratch files. */
  sessionDir: string;
  mode: PermissionMode;
  limits?: Partial<AgentLimits>;
  shell?: Partial<ShellSettings>;
  slots?: ToolPipelineSlots;
  context?: ContextAssembler;
  stopCheck?: StopCheck;
  fileState?: ReadFileState;
  sessionId?: string;
  /** Folders outside the workspace the tools may read (never write). */
  extraReadRoots?: string[];
  signal?: AbortSignal;
  services?: SessionServices;
}

/**
 * One agent's session: its conversation, file state, usage, budgets and abort controller. The
 * loop (`query`) drives it; everything that must survive between turns lives here.
 */
export class AgentSession {
  readonly id: string;
  readonly role: string;
  readonly model: Model;
  readonly systemPrompt: string;
  readonly registry: ToolRegistry;
  readonly limits: AgentLimits;
  readonly slots: ToolPipelineSlots;
  readonly context: ContextAssembler;
  readonly stopCheck?: StopCheck;
  readonly abortController = new AbortController();
  readonly toolContext: ToolContext;
  readonly messages: Message[] = [];
  readonly ledger = new ToolLedger();
  usage: Usage = emptyUsage();
  costUsd = 0;
  turns = 0;
  readonly startedAt = Date.now();
  /** Events emitted from inside tools and slots, flushed by the loop at its next yield. */
  readonly pending: AgentEventInput[] = [];

  constructor(options: AgentSessionOptions) {
    this.id = options.sessionId ?? randomUUID();
    this.role = options.role;
    this.model = options.model;
    this.systemPrompt = options.systemPrompt;
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.slots = options.slots ?? modeOnlySlots;
    this.stopCheck = options.stopCheck;
    this.registry = new ToolRegistry([...options.tools, reportTool(options.outputSchema)], options.deferredTools);
    this.context = options.context ?? {
      prepare: async (session) => ({
        system: [{ text: session.systemPrompt, cache: true }],
        messages: session.messages,
        cacheTools: true,
      }),
    };
    if (options.signal) {
      const parent = options.signal;
      // Cascade down only: the parent's abort stops this session, never the other way round.
      if (parent.aborted) this.abortController.abort(parent.reason);
      else parent.addEventListener('abort', () => this.abortController.abort(parent.reason), { once: true });
    }
    mkdirSync(options.sessionDir, { recursive: true });
    const workspace = new Workspace(options.workspaceRoot, {
      extraReadRoots: [options.sessionDir, ...(options.extraReadRoots ?? [])],
    });
    this.toolContext = {
      workspace,
      fileState: options.fileState ?? new ReadFileState(),
      signal: this.abortController.signal,
      session: { id: this.id, role: options.role, dir: path.resolve(options.sessionDir) },
      shell: {
        env: {},
        defaultTimeoutMs: 120_000,
        maxTimeoutMs: 600_000,
        ...options.shell,
      },
      mode: options.mode,
      emit: (event) => this.pending.push(event),
      services: options.services ?? {},
    };
  }

  /** The tokens spent so far as the token budget counts them (tokenBudget.ts). */
  tokensSpent(): number {
    return budgetTokens(this.usage, cacheReadWeightOf(this.model.id));
  }

  get fileState(): ReadFileState {
    return this.toolContext.fileState;
  }

  get workspace(): Workspace {
    return this.toolContext.workspace;
  }

  get signal(): AbortSignal {
    return this.abortController.signal;
  }

  abort(reason: string): void {
    this.abortController.abort(new SessionAbort(reason));
  }
}

/** The reason a session was aborted: a user or run abort, or a budget the loop enforces. */
export class SessionAbort extends Error {
  override readonly name = 'SessionAbort';
  constructor(readonly why: string) {
    super(why);
  }
}
