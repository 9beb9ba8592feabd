import { randomUUID } from 'node:crypto';
import { mkdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import type { CompactionConfigInput } from '../context/compaction/compactionConfig.js';
import { parseCompactionConfig } from '../context/compaction/compactionConfig.js';
import { writeConfigFolders } from '../context/config/configFolders.js';
import { settingsFromConfig } from '../context/config/trustedSettings.js';
import { skillGrantsIn } from '../context/instructions/skillGrants.js';
import { memorySection } from '../context/memory/memoryPrompt.js';
import { SessionMemory } from '../context/memory/memoryService.js';
import { createContextAssembler } from '../context/prompt/assembler.js';
import type { GitSnapshot } from '../context/prompt/gitSnapshot.js';
import { staticSystemPrompt } from '../context/prompt/staticPrompt.js';
import { type AgentEvent, type AgentEventInput, stamp } from '../core/events/agentEvent.js';
import type { ReadFileState } from '../core/files/readFileState.js';
import type { AgentLimits } from '../core/loop/limits.js';
import { type AgentResult, runSession } from '../core/loop/query.js';
import { AgentSession, type StopCheck } from '../core/loop/session.js';
import { Transcript } from '../core/loop/transcript.js';
import type { Model } from '../core/model/model.js';
import { contextWindowOf } from '../core/model/modelCapabilities.js';
import type { SandboxMode } from '../core/runtime/sandboxMode.js';
import type { PermissionMode } from '../core/tool/permissionMode.js';
import type { ToolPipelineSlots } from '../core/tool/pipeline.js';
import type { AnyTool, SessionServices } from '../core/tool/tool.js';
import { familyOf } from '../core/tool/toolFacts.js';
import type { InjectedCard } from '../infra/queue/memoryPayload.js';
import type { TrustedConfig } from '../infra/queue/trustedConfig.js';
import { createReportReminder } from '../infra/tasks/reportReminder.js';
import { chainStopChecks } from '../infra/tasks/stopCheckChain.js';
import { ClaudeTranscript, claudeTranscriptPathFor } from '../policy/hooks/claudeTranscript.js';
import { hookContextFor, transcriptPathFor } from '../policy/hooks/hookContext.js';
import { type ClaudeCodePermissionMode, claudeCodeMode } from '../policy/hooks/hookInput.js';
import { runHooks } from '../policy/hooks/hookRunner.js';
import { hooksFromSettings } from '../policy/hooks/hookSettings.js';
import { type HooksConfig, mergeHooksConfigs, notFiredNotice } from '../policy/hooks/hooksConfig.js';
import { permissionRequestHook } from '../policy/hooks/permissionRequest.js';
import { isModelFailure, stopFailureKind } from '../policy/hooks/stopFailure.js';
import { createStopCheck, lastAssistantText } from '../policy/hooks/stopHooks.js';
import { createHarnessSlots } from '../policy/hooks/toolSlots.js';
import { createPermissionDecider } from '../policy/permissions/permissionSlot.js';
import { PermissionPolicy } from '../policy/permissions/policy.js';
import { DenyPrompter, type Prompter } from '../policy/permissions/prompter.js';
import { networkAllowance, shellSandbox } from '../policy/permissions/sandbox.js';
import { ToolLimit } from '../policy/permissions/toolLimit.js';
import { loadPlugins } from '../policy/plugins/pluginSet.js';
import { loadSettings } from '../policy/settings/loadSettings.js';
import { EditDiagnostics } from '../tools/lsp/editDiagnostics.js';
import { LANGUAGE_SERVERS, serverReadablePaths } from '../tools/lsp/languageServers.js';
import { LspService, type LspServiceOptions } from '../tools/lsp/lspService.js';
import { McpServers } from '../tools/mcp/mcpServers.js';
import { toolDeferral, toolSearchSetting } from '../tools/mcp/toolDeferral.js';
import { toolSearchTool } from '../tools/toolSearch.js';

export interface HarnessOptions {
  role: {
    name: string;
    prompt: string;
    mode: PermissionMode;
    limits: Partial<AgentLimits>;
    sandbox: boolean;
    /** The mode by Claude Code's name, when the role was given one (an agent file's `permissionMode`). */
    claudeMode?: ClaudeCodePermissionMode;
  };
  tools: AnyTool[];
  outputSchema: z.ZodType;
  model: Model;
  /** The agent's workspace root; also the project whose `.claude/` files apply. */
  workspaceRoot: string;
  /** May the agent's shell write the workspace (false for a read-only view)? */
  workspaceWritable: boolean;
  /** Folders the sandboxed shell must be able to read (the repository's git folder, linked dependencies). */
  sandboxReadable?: string[];
  /** The job's `--sandbox` mode (auto by default): `required` throws SandboxRequiredError without a working bwrap. */
  sandboxMode?: SandboxMode;
  sessionDir: string;
  /** Environment for the agent's commands and hooks: PORT, ORCA_PORTS, ORCA_RUN_ID, ORCA_TASK_ID, … */
  shellEnv: Record<string, string>;
  fileState?: ReadFileState;
  signal?: AbortSignal;
  /** Who answers a permission question; headless workers refuse (the default). */
  prompter?: Prompter;
  /** `Stop` for an agent on its own (`orca agent`), `SubagentStop` for one of a run's agents. */
  stopEvent: 'Stop' | 'SubagentStop';
  /** The checks named for the task: compaction lists them as not run until they are. */
  requiredChecks?: string[];
  compaction?: CompactionConfigInput;
  /** The user's `~/.claude` (settings, CLAUDE.md, skills), overridable for tests. */
  userClaudeDir?: string;
  homeDir?: string;
  sessionId?: string;
  agentId?: string;
  /** Context lines for each transcript entry (run, task, role). */
  transcriptContext?: Record<string, string>;
  /** Services the tools reach (the task list, the check recorder); the harness adds the hooks. */
  services?: SessionServices;
  /** Wraps the pipeline's slots (the check recorder sees every Bash check this way). */
  wrapSlots?: (slots: ToolPipelineSlots) => ToolPipelineSlots;
  /** Stop checks run after the Stop hooks (the report gate, the verification nudge), before the Report reminder. */
  stopChecks?: StopCheck[];
  /** The workspace's git state at the start, when the caller knows it (it just checked it out). */
  gitAtStart?: GitSnapshot;
  /**
   * Memory (docs/memory.md): the run's scope and day, the cards chosen for this session (they end
   * the dynamic system block, and the transcript records which), and where a Remember call's
   * cards are credited (`run <run> task <task>`).
   */
  memory?: { scope: string; today: string; source: string; cards: InjectedCard[] };
  /** The `allowed-tools` of the run's slash command: the tools and calls the agent is limited to (toolLimit.ts). */
  toolLimit?: { source: string; rules: string[] };
  /** The effort the model works at (`--effort`, the role's), for hooks' `effort.level`; default: the API's, `high`. */
  effort?: string;
  /** Claude Code plugin folders (`--plugin-dir`); the ones the settings enable are added. */
  pluginDirs?: string[];
  /** The language servers (which, their deadlines; on unless ORCA_LSP=off), overridable for tests. */
  lsp?: LspServiceOptions;
  /**
   * The agent's MCP servers, started already (startAgentMcp): their tools join the role's, their
   * instructions the dynamic prompt; the harness gives them back when the agent ends (`close`).
   */
  mcp?: McpServers;
  /** `ORCA_TOOL_SEARCH`, overridable for tests (default: the environment's). */
  toolSearch?: string;
  /**
   * The run's trusted configuration (settings, hooks, rules, skills, instructions: read at the
   * run's base commit and from the user's folders), and a folder of the session's own to write its
   * files out in. Jobs always have one; unset (tests of the harness alone), the workspace's
   * `.claude/` and the user's folders are read as they are.
   */
  config?: { files: TrustedConfig; folder: string };
}

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
  /** Where `run` records events (the transcript, then its caller), while it runs. */
  private recording?: (event: AgentEvent) => void;
  /** The session's language servers, stopped when `run` ends. */
  readonly lsp: LspService;
  /** The agent's MCP servers, given back when `run` ends. */
  readonly mcp: McpServers;

  constructor(private readonly options: HarnessOptions) {
    const trusted = options.config;
    const settings = trusted
      ? settingsFromConfig(options.workspaceRoot, trusted.files)
      : loadSettings({ projectRoot: options.workspaceRoot, userClaudeDir: options.userClaudeDir });
    // Plugin folders are the user's own (--plugin-dir, enabledPlugins' directory marketplaces): read from disk.
    const plugins = loadPlugins({ dirs: options.pluginDirs ?? [], settings: settings.sources, projectRoot: options.workspaceRoot });
    const hooksOff = settings.sources.some((source) => source.raw.disableAllHooks === true);
    this.hooks = mergeHooksConfigs([hooksFromSettings(settings.sources), ...(hooksOff ? [] : plugins.plugins.map((p) => p.hooks))]);
    const folders = trusted ? writeConfigFolders(trusted.files, trusted.folder) : undefined;
    const notices: string[] = [...(trusted?.files.problems ?? []).map((problem) => `configuration: ${problem}`), ...plugins.notices];
    const notFired = notFiredNotice(this.hooks);
    if (notFired !== undefined) notices.push(notFired);
    // The session's scratch folder: TMPDIR, at the same path in the sandbox and out, writable by Bash.
    const scratch = path.join(options.sessionDir, 'tmp');
    mkdirSync(scratch, { recursive: true });
    const scratchDir = realpathSync(scratch);
    const sandbox = shellSandbox({
      enabled: options.role.sandbox,
      mode: options.sandboxMode,
      // A read-only view is not writable even to its own shell: the private temp folder stands in.
      worktree: options.workspaceWritable ? options.workspaceRoot : scratchDir,
      tempDir: scratchDir,
      network: networkAllowance(settings).allowed,
      // The workspace itself (a read-only view is not bound writable) and what the language servers run from.
      extraReadable: [
        ...(options.sandboxReadable ?? []),
        options.workspaceRoot,
        ...serverReadablePaths(options.lsp?.servers ?? LANGUAGE_SERVERS),
      ],
      notify: (message) => notices.push(message),
    });
    this.sandboxed = sandbox.active;
    // Said per session, not once per process: an unsandboxed full-access agent is the case to know about.
    if (!sandbox.active && options.role.mode === 'full-access' && options.tools.some((tool) => familyOf(tool) === 'run'))
      notices.push(
        `${options.role.name} runs in full-access mode without the sandbox: its Bash commands run on this host as you, held only by the permission checks (a write a command names must be inside the worktree)`,
      );
    const limit = options.toolLimit ? ToolLimit.from(options.toolLimit.rules, options.toolLimit.source) : undefined;
    const policy = PermissionPolicy.fromSettings(settings, {
      ...sandbox.policy,
      writableOutside: [...(sandbox.policy.writableOutside ?? []), scratchDir],
      home: options.homeDir,
    }).withAllowRules(limit?.texts ?? [], limit?.source ?? '');
    const decider = createPermissionDecider({
      policy,
      limit,
      home: options.homeDir,
      prompter: options.prompter ?? new DenyPrompter(),
      requestHook: permissionRequestHook(this.hooks),
      beforeAsk: async (question, ctx) => {
        await runHooks(
          this.hooks,
          'Notification',
          {
            message: `orca needs your permission to use ${question.tool}: ${question.summary}`,
            title: 'Permission needed',
            notification_type: 'permission_prompt',
          },
          hookContextFor(ctx),
        );
      },
      announce: (event) => this.announce(event),
      temporaryAllows: (ctx) =>
        skillGrantsIn(ctx.services)
          .activeGrants()
          .map((grant) => ({ rules: grant.rules, source: `skill:${grant.skill}` })),
    });
    const hooks = this.hooks;
    const memory = options.memory;
    this.lsp = new LspService(options.lsp);
    const diagnostics = new EditDiagnostics(this.lsp);
    // Reads open files in their server ahead of an edit only for agents that can edit.
    const warmOnRead = options.tools.some((tool) => familyOf(tool) === 'edit');
    this.mcp = options.mcp ?? McpServers.none();
    const ownTools = limit ? options.tools.filter((tool) => limit.allowsTool(tool)) : options.tools;
    const mcpTools = limit ? this.mcp.tools().filter((tool) => limit.allowsTool(tool)) : this.mcp.tools();
    const deferral = toolDeferral({
      mcpTools,
      contextWindow:
        parseCompactionConfig(options.compaction ?? {}, 'the compaction options').contextWindow ?? contextWindowOf(options.model.id),
      setting: toolSearchSetting(options.toolSearch === undefined ? process.env : { ORCA_TOOL_SEARCH: options.toolSearch }),
      native: options.model.nativeToolSearch === true,
    });
    // ToolSearch is one of the static tools, before the deferred ones, so the cached prefix holds it from the start.
    const searchTools = deferral.deferred && !deferral.deferred.native ? [toolSearchTool] : [];
    this.session = new AgentSession({
      role: options.role.name,
      model: options.model,
      systemPrompt: staticSystemPrompt(options.role.prompt),
      tools: [...ownTools, ...searchTools, ...mcpTools],
      deferredTools: deferral.deferred,
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
        diagnostics.wrap(createHarnessSlots({ hooks, permission: decider }), { warmOnRead }),
      ),
      context: createContextAssembler({
        homeDir: options.homeDir,
        config: folders && trusted ? { ...folders, shownHome: trusted.files.home.dir } : undefined,
        requiredChecks: options.requiredChecks,
        compaction: options.compaction,
        gitAtStart: options.gitAtStart,
        memorySection: memory ? memorySection(memory.cards) : undefined,
        mcpSection: this.mcp.promptSection(),
        // A hook may change files at any event, where the session's own tool log cannot see it.
        othersMayWrite: Object.values(hooks.byEvent).some((groups) => groups !== undefined && groups.length > 0),
        onInstructionsLoaded: async (session, loaded) => {
          const context = hookContextFor(session.toolContext);
          for (const file of loaded) {
            await runHooks(
              hooks,
              'InstructionsLoaded',
              {
                file_path: file.file,
                memory_type: file.memoryType,
                load_reason: file.loadReason,
                ...(file.globs ? { globs: file.globs } : {}),
                ...(file.triggerFile !== undefined ? { trigger_file_path: file.triggerFile } : {}),
                ...(file.parentFile !== undefined ? { parent_file_path: file.parentFile } : {}),
              },
              context,
            );
          }
        },
        onCompact: async (phase, info) => {
          const context = hookContextFor(info.session.toolContext);
          if (phase === 'pre') {
            const outcome = await runHooks(
              hooks,
              'PreCompact',
              { trigger: info.trigger, custom_instructions: info.customInstructions ?? '' },
              context,
            );
            return outcome.blocked ? { block: outcome.reason ?? 'a PreCompact hook blocked it' } : undefined;
          }
          await runHooks(hooks, 'PostCompact', { trigger: info.trigger, compact_summary: info.summary ?? '' }, context);
          return undefined;
        },
      }),
      // The Report reminder comes last: whatever the others ask for, the agent is also told to Report.
      stopCheck: chainStopChecks(
        createStopCheck(hooks, { event: options.stopEvent }),
        ...(options.stopChecks ?? []),
        createReportReminder(),
      ),
      services: {
        ...options.services,
        // Full access with Bash in the sandbox is what Claude Code calls accepting edits (its sandbox allows commands).
        claudePermissionMode:
          options.role.claudeMode ??
          (options.role.mode === 'full-access' && sandbox.active ? 'acceptEdits' : claudeCodeMode(options.role.mode)),
        hookPrompt: { promptId: randomUUID(), effort: options.effort ?? 'high' },
        pluginSkills: plugins.plugins.flatMap((plugin) => plugin.skillDirs.map((dir) => ({ plugin: plugin.name, dir }))),
        claudeTranscript: new ClaudeTranscript(claudeTranscriptPathFor(path.resolve(options.sessionDir)), {
          id: () => this.session.id,
          cwd: options.workspaceRoot,
          model: () => options.model.id,
          messages: () => this.session.messages,
        }),
        hooks,
        lsp: this.lsp,
        editDiagnostics: diagnostics,
        ...(memory
          ? { memory: new SessionMemory({ scope: memory.scope, today: memory.today, source: memory.source, given: memory.cards }) }
          : {}),
      },
      fileState: options.fileState,
      sessionId: options.sessionId,
      signal: options.signal,
    });
    for (const message of notices) this.session.pending.push({ type: 'notice', level: 'warn', message });
    for (const message of this.mcp.problems) this.session.pending.push({ type: 'notice', level: 'warn', message });
    if (mcpTools.length > 0) {
      const running = this.mcp.running.map((server) => `${server.name} (${server.tools.length} tools)`).join(', ');
      this.session.pending.push({ type: 'notice', level: 'info', message: `MCP servers: ${running}; ${deferral.why}` });
    }
    if (deferral.deferred && !deferral.deferred.native) this.session.toolContext.services.toolSearch = this.session.registry;
    if (memory) {
      this.session.pending.push({
        type: 'memory',
        scope: memory.scope,
        cards: memory.cards.map(({ id, type, title, scope, origin, score }) => ({ id, type, title, scope, origin, score })),
      });
    }
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
   * SessionEnd is told how it went. Every event goes to the transcript and to `onEvent`.
   */
  async run(prompt: string, onEvent: (event: AgentEvent) => void = () => {}): Promise<AgentResult> {
    const { session } = this;
    const ctx = session.toolContext;
    const context = hookContextFor(ctx);
    const record = (event: AgentEvent) => {
      this.transcript.record(event);
      onEvent(event);
    };
    this.recording = record;
    const extra: string[] = [];
    try {
      const start = await runHooks(this.hooks, 'SessionStart', { source: 'startup', model: session.model.id }, context);
      extra.push(...start.additionalContext);
      if (this.options.stopEvent === 'SubagentStop') {
        const sub = await runHooks(
          this.hooks,
          'SubagentStart',
          { agent_id: this.options.agentId ?? session.id, agent_type: session.role },
          context,
        );
        extra.push(...sub.additionalContext);
      }
      const submit = await runHooks(this.hooks, 'UserPromptSubmit', { prompt }, context);
      if (submit.blocked || submit.stop) {
        const detail = `a UserPromptSubmit hook refused the task: ${submit.reason ?? submit.stop ?? 'no reason given'}`;
        const result: AgentResult = { reason: 'stopped_by_hook', detail, turns: 0, usage: session.usage, costUsd: 0 };
        record({ type: 'end', at: Date.now(), reason: 'stopped_by_hook', detail, turns: 0, usage: session.usage, cost_usd: 0 });
        return result;
      }
      extra.push(...submit.additionalContext);
      const fullPrompt = extra.length > 0 ? `${prompt}\n\n${extra.join('\n\n')}` : prompt;
      record({ type: 'prompt', at: Date.now(), text: fullPrompt });
      const result = await runSession(session, fullPrompt, record);
      if (isModelFailure(result.reason, result.detail)) {
        const last = lastAssistantText(session);
        await runHooks(
          this.hooks,
          'StopFailure',
          {
            error: stopFailureKind(result.detail ?? ''),
            error_details: result.detail ?? '',
            ...(last !== undefined ? { last_assistant_message: last } : {}),
          },
          { ...context, signal: new AbortController().signal },
        );
      }
      await runHooks(
        this.hooks,
        'SessionEnd',
        // A run with its prompt given (`claude -p`) ends with `other` in Claude Code, however it ended.
        { reason: 'other' },
        { ...context, signal: new AbortController().signal },
      );
      return result;
    } finally {
      this.recording = undefined;
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
      ctx.services.claudeTranscript?.sync();
    }
  }
}
