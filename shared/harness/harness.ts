import { staticSystemPrompt } from '../context/prompt/staticPrompt.js';
import { type AgentEvent, type AgentEventInput, stamp } from '../core/events/agentEvent.js';
import { type AgentResult, runSession } from '../core/loop/query.js';
import { AgentSession } from '../core/loop/session.js';
import { Transcript } from '../core/loop/transcript.js';
import { familyOf } from '../core/tool/toolFacts.js';
import { createReportReminder } from '../infra/tasks/reportReminder.js';
import { chainStopChecks } from '../infra/tasks/stopCheckChain.js';
import { hookContextFor, transcriptPathFor } from '../policy/hooks/hookContext.js';
import type { HooksConfig } from '../policy/hooks/hooksConfig.js';
import { createStopCheck } from '../policy/hooks/stopHooks.js';
import { createHarnessSlots } from '../policy/hooks/toolSlots.js';
import { EditDiagnostics } from '../tools/lsp/editDiagnostics.js';
import { LspService } from '../tools/lsp/lspService.js';
import { McpServers } from '../tools/mcp/mcpServers.js';
import type { HarnessOptions } from './harnessOptions.js';
import { closingHooks, openingHooks } from './lifecycleHooks.js';
import { readSessionConfig } from './sessionConfig.js';
import { sessionContext } from './sessionContext.js';
import { sessionPermissions } from './sessionPermissions.js';
import { sessionSandbox } from './sessionSandbox.js';
import { sessionServices } from './sessionServices.js';
import { queueSessionStart } from './sessionStart.js';
import { sessionTools } from './sessionTools.js';

/** What runs the agent in a session: orca's own loop (`runSession`) by default. */
export type SessionDriver = (session: AgentSession, prompt: string, record: (event: AgentEvent) => void) => Promise<AgentResult>;

/**
 * One agent session with the whole harness around it: the project's settings (permission rules
 * and hooks, Claude Code's files), the bwrap sandbox, the context assembler with compaction, the
 * Stop hooks, and a transcript. The layers above only choose the role, the model and the folder.
 */
export class Harness {
  readonly session: AgentSession;
  readonly hooks: HooksConfig;
  readonly transcript: Transcript;
  readonly sandboxed: boolean;
  /** What the session's sandboxed commands can write (Sandbox.writable); undefined when they run unsandboxed. */
  readonly commandWritable?: readonly string[];
  /** Where `run` records events (the transcript, then its caller), while it runs. */
  private recording?: (event: AgentEvent) => void;
  /** The session's language servers, stopped when `run` ends. */
  readonly lsp: LspService;
  /** The agent's MCP servers, given back when `run` ends. */
  readonly mcp: McpServers;

  constructor(private readonly options: HarnessOptions) {
    const config = readSessionConfig(options);
    this.hooks = config.hooks;
    const { sandbox, scratchDir } = sessionSandbox(options, config.settings, config.notices);
    this.sandboxed = sandbox.active;
    this.commandWritable = sandbox.writable;
    const { decider, limit } = sessionPermissions(options, {
      settings: config.settings,
      sandbox,
      scratchDir,
      hooks: this.hooks,
      announce: (event) => this.announce(event),
    });
    this.lsp = new LspService(options.lsp);
    const diagnostics = new EditDiagnostics(this.lsp);
    // Reads open files in their server ahead of an edit only for agents that can edit.
    const warmOnRead = options.tools.some((tool) => familyOf(tool) === 'edit');
    this.mcp = options.mcp ?? McpServers.none();
    const tools = sessionTools(options, this.mcp, limit);
    this.session = new AgentSession({
      role: options.role.name,
      model: options.model,
      systemPrompt: staticSystemPrompt(options.role.prompt),
      tools: tools.all,
      deferredTools: tools.deferral.deferred,
      outputSchema: options.outputSchema,
      workspaceRoot: options.workspaceRoot,
      sessionDir: options.sessionDir,
      mode: options.role.mode,
      limits: options.role.limits,
      shell: {
        env: { ...options.shellEnv, TMPDIR: scratchDir },
        wrap: sandbox.wrap,
        ...(options.sandboxMode === 'required' ? { hookWrap: sandbox.wrap } : {}),
      },
      slots: (options.wrapSlots ?? ((slots) => slots))(
        diagnostics.wrap(createHarnessSlots({ hooks: this.hooks, permission: decider }), { warmOnRead }),
      ),
      context: sessionContext(options, this.hooks, config.folders, this.mcp),
      // The Report reminder comes last: whatever the others ask for, the agent is also told to Report.
      stopCheck: chainStopChecks(
        createStopCheck(this.hooks, { event: options.stopEvent }),
        ...(options.stopChecks ?? []),
        createReportReminder(),
      ),
      services: sessionServices(options, {
        sandboxed: sandbox.active,
        plugins: config.plugins,
        hooks: this.hooks,
        lsp: this.lsp,
        diagnostics,
        session: () => this.session,
      }),
      fileState: options.fileState,
      sessionId: options.sessionId,
      signal: options.signal,
    });
    queueSessionStart(this.session, { notices: config.notices, mcp: this.mcp, tools, memory: options.memory });
    if (tools.deferral.deferred && !tools.deferral.deferred.native) this.session.toolContext.services.toolSearch = this.session.registry;
    this.transcript = new Transcript(transcriptPathFor(this.session.toolContext.session.dir), options.transcriptContext);
  }

  /** Gives the agent's MCP servers back (the last agent using one stops it); safe to call again. */
  async close(): Promise<void> {
    await this.mcp.close().catch((error: unknown) => {
      this.session.pending.push({
        type: 'notice',
        level: 'error',
        message: `MCP servers: ${error instanceof Error ? error.message : String(error)}`,
      });
    });
  }

  /**
   * Records an event now, from inside a tool call (a permission question and its answer, which
   * people watch for while the call waits): the events emitted before it first, in order. Outside
   * `run` it waits with them for the loop.
   */
  private announce(event: AgentEventInput): void {
    const { pending } = this.session;
    if (!this.recording) {
      pending.push(event);
      return;
    }
    for (const earlier of pending.splice(0)) this.recording(stamp(earlier));
    this.recording(stamp(event));
  }

  /**
   * Runs the agent on `prompt` with the session lifecycle hooks around it: SessionStart (and
   * SubagentStart) may add context, UserPromptSubmit may add context or refuse the prompt,
   * SessionEnd is told how it went. Every event goes to the transcript and to `onEvent`. `drive`
   * runs the agent itself: orca's loop, or an ACP agent with orca as its client (workers/agents/).
   */
  async run(prompt: string, onEvent: (event: AgentEvent) => void = () => {}, drive: SessionDriver = runSession): Promise<AgentResult> {
    const { session } = this;
    const context = hookContextFor(session.toolContext);
    const record = (event: AgentEvent) => {
      this.transcript.record(event);
      onEvent(event);
    };
    this.recording = record;
    try {
      const opening = await openingHooks(this.hooks, {
        session,
        prompt,
        subagentId: this.options.stopEvent === 'SubagentStop' ? (this.options.agentId ?? session.id) : undefined,
        context,
      });
      if (opening.refusal !== undefined) {
        const detail = opening.refusal;
        const result: AgentResult = { reason: 'stopped_by_hook', detail, turns: 0, usage: session.usage, costUsd: 0 };
        record({ type: 'end', at: Date.now(), reason: 'stopped_by_hook', detail, turns: 0, usage: session.usage, cost_usd: 0 });
        return result;
      }
      const extra = opening.additionalContext;
      const fullPrompt = extra.length > 0 ? `${prompt}\n\n${extra.join('\n\n')}` : prompt;
      record({ type: 'prompt', at: Date.now(), text: fullPrompt });
      const result = await drive(session, fullPrompt, record);
      await closingHooks(this.hooks, session, result, context);
      return result;
    } finally {
      this.recording = undefined;
      await this.finish();
    }
  }

  /** After the session, however it ended: its servers stopped, what is still pending recorded, the transcripts written out. */
  private async finish(): Promise<void> {
    const { session } = this;
    await this.close();
    await this.lsp.close().catch((error: unknown) => {
      session.pending.push({
        type: 'notice',
        level: 'error',
        message: `language servers: ${error instanceof Error ? error.message : String(error)}`,
      });
    });
    for (const event of session.pending.splice(0)) this.transcript.record({ ...event, at: Date.now() } as AgentEvent);
    this.transcript.flush();
    session.toolContext.services.claudeTranscript?.sync();
  }
}
