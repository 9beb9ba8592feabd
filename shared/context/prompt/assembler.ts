import os from 'node:os';
import type { AfterToolCall, AgentSession, ContextAssembler, PreparedContext } from '../../core/loop/session.js';
import type { Message } from '../../core/model/message.js';
import type { ToolSpec } from '../../core/model/model.js';
import { readResultFile } from '../../core/tool/readResultData.js';
import type { CompactHook } from '../compaction/autocompact.js';
import { AutocompactAttempts } from '../compaction/autocompactAttempts.js';
import { type CompactionConfig, type CompactionConfigInput, parseCompactionConfig, thresholdsFor } from '../compaction/compactionConfig.js';
import { climbCompactionLadder } from '../compaction/compactionLadder.js';
import { buildView, type Extra, emptyDecisions, type ViewDecisions, withCacheBreakpoints } from '../compaction/requestView.js';
import { estimateView, TokenCounter } from '../compaction/tokenCount.js';
import { type LoadedInstruction, loadedRule } from '../instructions/loadedInstructions.js';
import { type SkillGrants, skillGrantsIn } from '../instructions/skillGrants.js';
import { ConditionalRules } from './conditionalRules.js';
import type { GitSnapshot } from './gitSnapshot.js';
import { type ContextConfigFolders, loadPromptLayers, type PromptLayers } from './promptLayers.js';
import { TurnReminders } from './turnReminder.js';

export interface ContextAssemblerOptions {
  /** Thresholds and limits of the compaction levels (compactionConfig.ts documents the defaults). */
  compaction?: CompactionConfigInput;
  /** The user's home, where `~/.claude/` is found; overridable for tests. Default: os.homedir(). */
  homeDir?: string;
  /** The checks named for this task (a plan subtask's `checks`): listed as not run until they are. */
  requiredChecks?: string[];
  /** PreCompact / PostCompact: the hooks layer plugs in here. */
  onCompact?: CompactHook;
  /** InstructionsLoaded: told what instruction files and rules went into the context, and when. */
  onInstructionsLoaded?: (session: AgentSession, loaded: LoadedInstruction[]) => Promise<void>;
  /** Check git status before each model call to report changes in the reminder (default true). */
  gitStatusEachTurn?: boolean;
  /** The git state at session start when the caller knows it (a worktree it just checked out). */
  gitAtStart?: GitSnapshot;
  /** The memory cards chosen for this session, as text: they end the dynamic system block (docs/memory.md). */
  memorySection?: string;
  /** The MCP servers' part of the prompt (their instructions, which are not available): in the dynamic system block, before the memory cards. */
  mcpSection?: string;
  /**
   * Whether something besides the session's own tool calls may change its files (hooks are
   * configured): then git status is taken before every call, not only after a call that may write.
   */
  othersMayWrite?: boolean;
  /** The host's watch's last `git status` of the worktree, taken after the last call that may write (TurnReminders). */
  lastWorktreeLook?: () => string | undefined;
  /** Where the trusted configuration's files are (instructions, rules, skills); unset: the workspace and the home. */
  config?: ContextConfigFolders;
}

interface SessionState {
  layers: PromptLayers;
  decisions: ViewDecisions;
  rules: ConditionalRules;
  reminders: TurnReminders;
  grants: SkillGrants;
  counter: TokenCounter;
  autocompaction: AutocompactAttempts;
}

/**
 * Builds every request of a session (implements ContextAssembler):
 *   tools (cache breakpoint on the last) → the two system blocks and the context message, set
 *   once at session start (promptLayers.ts) → the transcript as the compaction decisions show it,
 *   the newest user message carrying any conditional rule just triggered (conditionalRules.ts)
 *   and the per-turn reminder (turnReminder.ts), and cache breakpoints on the last block and on
 *   the end of the previous turn (requestView.ts).
 * Compaction runs here, before each call: the cheap levels (compactionLadder.ts), then
 * autocompact when the view is still over its threshold (autocompactAttempts.ts).
 */
class OrcaContextAssembler implements ContextAssembler {
  private readonly config: CompactionConfig;
  private readonly homeDir: string;
  private readonly states = new WeakMap<AgentSession, SessionState>();

  constructor(private readonly options: ContextAssemblerOptions) {
    this.config = parseCompactionConfig(options.compaction ?? {}, 'the compaction options');
    this.homeDir = options.homeDir ?? os.homedir();
  }

  async prepare(session: AgentSession): Promise<PreparedContext> {
    const state = this.states.get(session) ?? (await this.start(session));
    state.grants.beginTurn(session.turns);
    await this.attachTurnNotes(session, state);
    const tools = session.registry.specs();
    const view = await this.compactedView(session, state, tools);
    const messages = withCacheBreakpoints(view);
    state.counter.sent(estimateView(state.layers.system, messages, tools), session.usage);
    return { system: state.layers.system, messages, cacheTools: true };
  }

  afterTool(session: AgentSession, call: AfterToolCall): void {
    const state = this.states.get(session);
    if (state && call.mayWrite) state.reminders.filesMayHaveChanged();
    // Tools run only after a first prepare(); without one there is no session state to update.
    if (!state || call.isError) return;
    const file = readResultFile(call, session.workspace.root);
    if (file) state.rules.noteRead(file, session.workspace.display(file));
  }

  /**
   * Reactive compaction: the API said the conversation does not fit the model's window, so the
   * history is replaced by a hand-off summary now (autocompact.ts), whatever the thresholds say.
   */
  async compactNow(session: AgentSession, why: string): Promise<{ ok: true } | { ok: false; reason: string }> {
    const state = this.states.get(session) ?? (await this.start(session));
    if (!this.config.autocompact) return { ok: false, reason: 'autocompaction is turned off in the compaction settings' };
    if (state.autocompaction.off) return { ok: false, reason: 'autocompaction is off for this session after failing in a row' };
    const { system } = state.layers;
    const tools = session.registry.specs();
    const thresholds = thresholdsFor(this.config, session.limits.maxOutputTokens, session.model.id);
    const measure = (view: Message[]) => state.counter.count(estimateView(system, view, tools), session.usage);
    const view = buildView(session.messages, state.decisions);
    const after = await state.autocompaction.attempt({
      session,
      trigger: 'auto',
      decisions: state.decisions,
      system,
      library: state.layers.library,
      injectedRules: state.rules.shown(),
      view,
      tokens: measure(view),
      threshold: thresholds.autocompact,
      measure,
      reactive: why,
    });
    return after ? { ok: true } : { ok: false, reason: state.autocompaction.failure ?? 'the compaction did not happen' };
  }

  /** Set up once per session: the prompt layers, rules and skills. */
  private async start(session: AgentSession): Promise<SessionState> {
    const layers = await loadPromptLayers(session, {
      homeDir: this.homeDir,
      gitAtStart: this.options.gitAtStart,
      memorySection: this.options.memorySection,
      mcpSection: this.options.mcpSection,
      config: this.options.config,
    });
    const decisions = emptyDecisions();
    decisions.contextText = layers.contextText;
    const state: SessionState = {
      layers,
      decisions,
      rules: new ConditionalRules(layers.conditionalRules),
      reminders: new TurnReminders(layers.gitAtStart, {
        gitStatusEachTurn: this.options.gitStatusEachTurn !== false,
        othersMayWrite: this.options.othersMayWrite ?? false,
        lastLook: this.options.lastWorktreeLook,
      }),
      grants: skillGrantsIn(session.toolContext.services),
      counter: new TokenCounter(),
      autocompaction: new AutocompactAttempts(this.config, {
        requiredChecks: this.options.requiredChecks,
        onCompact: this.options.onCompact,
      }),
    };
    this.states.set(session, state);
    if (layers.loaded.length > 0) await this.options.onInstructionsLoaded?.(session, layers.loaded);
    return state;
  }

  /** The view after the cheap levels whose thresholds it reached, then autocompact if it is still over its own. */
  private async compactedView(session: AgentSession, state: SessionState, tools: ToolSpec[]): Promise<Message[]> {
    const { system } = state.layers;
    const thresholds = thresholdsFor(this.config, session.limits.maxOutputTokens, session.model.id);
    const measure = (view: Message[]) => state.counter.count(estimateView(system, view, tools), session.usage);
    const { view, tokens } = climbCompactionLadder({
      session,
      decisions: state.decisions,
      thresholds,
      keepRecentToolResults: this.config.keepRecentToolResults,
      visibleAfterCompaction: state.autocompaction.visibleFiles,
      measure,
    });
    if (tokens < thresholds.autocompact || state.autocompaction.off) return view;
    const after = await state.autocompaction.attempt({
      session,
      trigger: 'auto',
      decisions: state.decisions,
      system,
      library: state.layers.library,
      injectedRules: state.rules.shown(),
      view,
      tokens,
      threshold: thresholds.autocompact,
      measure,
    });
    return after?.view ?? view;
  }

  /** Conditional rules triggered since the last call, then the reminder, on the newest user message. */
  private async attachTurnNotes(session: AgentSession, state: SessionState): Promise<void> {
    const newest = session.messages.at(-1);
    if (newest?.role !== 'user') return;
    const extras: Extra[] = [...(state.decisions.extras.get(newest) ?? []), ...state.rules.takeTriggered()];
    const shown = state.rules.takeShown();
    if (shown.length > 0)
      await this.options.onInstructionsLoaded?.(
        session,
        shown.map(({ rule, file }) => loadedRule(rule, this.homeDir, file)),
      );
    if (session.turns > 1 && !extras.some((extra) => extra.kind === 'reminder')) {
      extras.push({ kind: 'reminder', block: { type: 'text', text: await state.reminders.textFor(session) } });
    }
    if (extras.length > 0) state.decisions.extras.set(newest, extras);
  }
}

export function createContextAssembler(options: ContextAssemblerOptions = {}): ContextAssembler {
  return new OrcaContextAssembler(options);
}
