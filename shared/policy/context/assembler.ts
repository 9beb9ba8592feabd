import os from 'node:os';
import type { AgentSession, ContextAssembler, PreparedContext } from '../../core/loop/session.js';
import type { Message } from '../../core/model/message.js';
import type { SystemBlock } from '../../core/model/model.js';
import { estimateMessagesTokens, estimateTokens } from '../../core/model/tokenEstimate.js';
import { readResultFile } from '../../core/tool/readResultData.js';
import { autocompact, type CompactHook, type CompactTrigger } from './autocompact.js';
import { collapsedText, findCollapsibleSpans } from './collapse.js';
import { parseCompactionConfig, thresholdsFor, type CompactionConfig, type CompactionConfigInput } from './compactionConfig.js';
import { contextMessageText } from './contextMessage.js';
import { dynamicContextText } from './dynamicContext.js';
import { readGitSnapshot, type GitSnapshot } from './gitSnapshot.js';
import { findClearable, placeholderFor } from './microcompact.js';
import { forgetHiddenReads } from './postCompactRestore.js';
import { loadProjectInstructions, projectFolders } from './projectInstructions.js';
import { buildView, emptyDecisions, sourceMessages, withCacheBreakpoints, type Extra, type ViewDecisions } from './requestView.js';
import { describeRule, loadRules, ruleMatches, type Rule } from './rules.js';
import { skillGrantsIn, type SkillGrants } from './skillGrants.js';
import { skillLibraryFor, type SkillLibrary } from './skills.js';
import { callTokens, findSnippable } from './snip.js';
import { estimateView, TokenCounter } from './tokenCount.js';
import { failed, filePathOf, toolCallsIn, type ToolCall } from './toolCalls.js';
import { turnReminderText } from './turnReminder.js';

export interface ContextAssemblerOptions {
  /** Thresholds and limits of the compaction levels (compactionConfig.ts documents the defaults). */
  compaction?: CompactionConfigInput;
  /** The user's home, where `~/.claude/` is found; overridable for tests. Default: os.homedir(). */
  homeDir?: string;
  /** The checks named for this task (a plan subtask's `checks`): listed as not run until they are. */
  requiredChecks?: string[];
  /** PreCompact / PostCompact: the hooks layer plugs in here. */
  onCompact?: CompactHook;
  /** Check git status before each model call to report changes in the reminder (default true). */
  gitStatusEachTurn?: boolean;
  /** The git state at session start when the caller knows it (a worktree it just checked out). */
  gitAtStart?: GitSnapshot;
  /**
   * Whether something besides the session's own tool calls may change its files (hooks are
   * configured): then git status is taken before every call, not only after a call that may write.
   */
  othersMayWrite?: boolean;
}

interface SessionState {
  system: SystemBlock[];
  gitAtStart: GitSnapshot;
  /** The last git snapshot taken, and whether a tool call that may write ran since. */
  git: { snapshot: GitSnapshot; stale: boolean };
  decisions: ViewDecisions;
  conditionalRules: Rule[];
  pendingRules: Array<{ rule: Rule; trigger: string }>;
  injectedRules: Map<string, string>;
  library: SkillLibrary;
  grants: SkillGrants;
  counter: TokenCounter;
  autocompactFailures: number;
  autocompactOff: boolean;
  /** Files the last autocompaction showed again: they count as seen. */
  visibleAfterCompaction?: Set<string>;
}

/**
 * Builds every request of a session (implements ContextAssembler):
 *   tools (cache breakpoint on the last) → system block 1, the static prompt (session.systemPrompt,
 *   see staticPrompt.ts; cache breakpoint) → system block 2, the dynamic environment taken once at
 *   session start → messages: the context message (instructions, unconditional rules, skills)
 *   first, then the transcript as the compaction decisions show it, the newest user message
 *   carrying the per-turn reminder and any conditional rule just triggered, and cache breakpoints
 *   on the last block and on the end of the previous turn.
 * Compaction runs here, before each call, cheapest level first, each at its own threshold:
 * snip → microcompact → collapse → autocompact (level 1, the result budget, is in the tool
 * pipeline). Every level that changes the view emits a `compaction` event.
 */
export class OrcaContextAssembler implements ContextAssembler {
  private readonly config: CompactionConfig;
  private readonly homeDir: string;
  private readonly states = new WeakMap<AgentSession, SessionState>();

  constructor(private readonly options: ContextAssemblerOptions = {}) {
    this.config = parseCompactionConfig(options.compaction ?? {}, 'the compaction options');
    this.homeDir = options.homeDir ?? os.homedir();
  }

  async prepare(session: AgentSession): Promise<PreparedContext> {
    const state = this.states.get(session) ?? (await this.start(session));
    state.grants.beginTurn(session.turns);
    await this.attachTurnNotes(session, state);

    const tools = session.registry.specs();
    const thresholds = thresholdsFor(this.config, session.limits.maxOutputTokens);
    const measure = (view: Message[]) => state.counter.count(estimateView(state.system, view, tools), session.usage);
    let view = buildView(session.messages, state.decisions);
    let tokens = measure(view);

    const reachedLevels: Array<'snip' | 'microcompact' | 'collapse'> = [];
    let broken = false;
    const apply = (level: 'snip' | 'microcompact' | 'collapse', minSavings: number): boolean => {
      const before = tokens;
      if (!this.decide(level, session, state, minSavings)) return false;
      view = buildView(session.messages, state.decisions);
      tokens = measure(view);
      session.toolContext.emit({ type: 'compaction', level, tokens_before: before, tokens_after: tokens });
      return true;
    };
    for (const level of ['snip', 'microcompact', 'collapse'] as const) {
      if (tokens < thresholds[level]) continue;
      reachedLevels.push(level);
      if (apply(level, thresholds.minSavings) && !broken) {
        broken = true;
        // The cache is rewritten from the oldest change on anyway: cheaper levels whose threshold
        // was reached take whatever small saving they have now, rather than break it again later.
        for (const earlier of reachedLevels.slice(0, -1)) apply(earlier, 0);
      }
    }

    if (tokens >= thresholds.autocompact && !state.autocompactOff) {
      const after = await this.autocompact(session, state, 'auto', view, tokens, thresholds.autocompact, measure);
      if (after) view = after.view;
    }

    const messages = withCacheBreakpoints(view);
    state.counter.sent(estimateView(state.system, messages, tools), session.usage);
    return { system: state.system, messages, cacheTools: true };
  }

  /**
   * The git state before a call: taken again only when something may have changed the files since
   * the last one (a tool call that may write, or hooks), since each take is a `git status` of the
   * whole tree, and an Explore agent's turns are mostly reads.
   */
  private async currentGit(session: AgentSession, state: SessionState): Promise<GitSnapshot> {
    if (state.git.stale || this.options.othersMayWrite) {
      state.git = { snapshot: await readGitSnapshot(session.workspace.root), stale: false };
    }
    return state.git.snapshot;
  }

  afterTool(session: AgentSession, call: { name: string; input: unknown; data?: unknown; isError: boolean; mayWrite: boolean }): void {
    const state = this.states.get(session);
    if (state && call.mayWrite) state.git.stale = true;
    // Tools run only after a first prepare(); without one there is no session state to update.
    if (!state || call.name !== 'Read' || call.isError) return;
    const file = readResultFile(call, session.workspace.root);
    if (!file) return;
    for (const rule of state.conditionalRules) {
      if (state.injectedRules.has(rule.file) || state.pendingRules.some((pending) => pending.rule === rule)) continue;
      if (ruleMatches(rule, file)) state.pendingRules.push({ rule, trigger: session.workspace.display(file) });
    }
  }

  /** Set up once per session: the prompt layers, rules and skills. */
  private async start(session: AgentSession): Promise<SessionState> {
    const root = session.workspace.root;
    const { root: repoRoot, folders } = projectFolders(root);
    const instructions = loadProjectInstructions({ cwd: root, homeDir: this.homeDir });
    const rules = loadRules({ projectDirs: folders, homeDir: this.homeDir, repoRoot });
    const library = skillLibraryFor(session.toolContext.services, () => ({ projectDirs: folders, homeDir: this.homeDir }));
    const gitAtStart = this.options.gitAtStart ?? (await readGitSnapshot(root));
    const dynamic = dynamicContextText({ cwd: root, date: new Date(session.startedAt), git: gitAtStart, shellEnv: session.toolContext.shell.env, limits: session.limits });
    const warn = (message: string) => session.toolContext.emit({ type: 'notice', level: 'warn', message });
    for (const skipped of instructions.skipped) warn(`instructions: skipped ${skipped.path}: ${skipped.reason}`);
    for (const problem of [...rules.problems, ...library.problems]) warn(`context: ${problem}`);

    const decisions = emptyDecisions();
    decisions.contextText = contextMessageText({
      instructions: instructions.files,
      rules: rules.rules.filter((rule) => !rule.patterns),
      skills: library.skills,
    });
    const state: SessionState = {
      system: [{ text: session.systemPrompt, cache: true }, { text: dynamic }],
      gitAtStart,
      git: { snapshot: gitAtStart, stale: false },
      decisions,
      conditionalRules: rules.rules.filter((rule) => rule.patterns),
      pendingRules: [],
      injectedRules: new Map(),
      library,
      grants: skillGrantsIn(session.toolContext.services),
      counter: new TokenCounter(),
      autocompactFailures: 0,
      autocompactOff: false,
    };
    this.states.set(session, state);
    return state;
  }

  /** Conditional rules triggered since the last call, then the reminder, on the newest user message. */
  private async attachTurnNotes(session: AgentSession, state: SessionState): Promise<void> {
    const newest = session.messages.at(-1);
    if (!newest || newest.role !== 'user') return;
    const extras: Extra[] = [...(state.decisions.extras.get(newest) ?? [])];
    for (const { rule, trigger } of state.pendingRules.splice(0)) {
      const text = `<system-reminder>\n${describeRule(rule, trigger)}\n</system-reminder>`;
      state.injectedRules.set(rule.file, text);
      extras.push({ kind: 'rule', block: { type: 'text', text } });
    }
    if (session.turns > 1 && !extras.some((extra) => extra.kind === 'reminder')) {
      const now = this.options.gitStatusEachTurn === false ? state.gitAtStart : await this.currentGit(session, state);
      const text = turnReminderText({
        turn: session.turns,
        limits: session.limits,
        usage: session.usage,
        costUsd: session.costUsd,
        elapsedMs: Date.now() - session.startedAt,
        start: state.gitAtStart,
        now,
      });
      extras.push({ kind: 'reminder', block: { type: 'text', text } });
    }
    if (extras.length > 0) state.decisions.extras.set(newest, extras);
  }

  /** Takes one level's new decisions when they save enough; says whether it did. */
  private decide(level: 'snip' | 'microcompact' | 'collapse', session: AgentSession, state: SessionState, minSavings: number): boolean {
    const { decisions } = state;
    const root = session.workspace.root;
    const source = sourceMessages(session.messages, decisions);
    const calls = toolCallsIn(source, session.ledger.all());
    const folded = foldedIndexes(source, decisions);
    const unseen = (call: ToolCall) => call.resultIndex === source.length - 1 || call.resultIndex < 0;
    const hidden = (call: ToolCall) => decisions.snipped.has(call.id) || folded.has(call.useIndex);

    if (level === 'snip') {
      const found = findSnippable(calls, root, (call) => unseen(call) || hidden(call));
      if (found.length === 0 || found.reduce((sum, item) => sum + callTokens(item.call), 0) < minSavings) return false;
      for (const { call } of found) decisions.snipped.add(call.id);
      return true;
    }

    if (level === 'microcompact') {
      const found = findClearable(calls, { keep: this.config.keepRecentToolResults, skip: (call) => unseen(call) || hidden(call) });
      const placeholders = found
        .filter((call) => !decisions.cleared.has(call.id))
        .map((call) => [call, placeholderFor(call, root, session.toolContext.session.dir)] as const)
        .filter(([call, text]) => estimateTokens(call.result!.content) > estimateTokens(text));
      const saved = placeholders.reduce((sum, [call, text]) => sum + estimateTokens(call.result!.content) - estimateTokens(text), 0);
      if (placeholders.length === 0 || saved < minSavings) return false;
      for (const [call, text] of placeholders) decisions.cleared.set(call.id, text);
      this.forgetUnseenReads(session, state);
      return true;
    }

    const spans = findCollapsibleSpans(source, calls, { isFolded: (index) => folded.has(index) });
    const chosen = spans
      .map((span) => ({ span, text: collapsedText(span, source, calls, root) }))
      .filter(({ span, text }) => spanTokens(source, span.startIndex, span.endIndex) > estimateTokens(text));
    const saved = chosen.reduce((sum, { span, text }) => sum + spanTokens(source, span.startIndex, span.endIndex) - estimateTokens(text), 0);
    if (chosen.length === 0 || saved < minSavings) return false;
    for (const { span, text } of chosen) decisions.collapsed.push({ start: source[span.startIndex]!, end: source[span.endIndex]!, text });
    this.forgetUnseenReads(session, state);
    return true;
  }

  /** Files whose every full Read is now hidden from the view must be read again before an edit. */
  private forgetUnseenReads(session: AgentSession, state: SessionState): void {
    const { decisions } = state;
    const source = sourceMessages(session.messages, decisions);
    const folded = foldedIndexes(source, decisions);
    const visible = new Set<string>();
    for (const call of toolCallsIn(source, session.ledger.all())) {
      if (call.name !== 'Read' || failed(call) || decisions.snipped.has(call.id) || decisions.cleared.has(call.id) || folded.has(call.useIndex)) continue;
      const file = filePathOf(call, session.workspace.root);
      if (file) visible.add(file);
    }
    for (const file of state.visibleAfterCompaction ?? []) visible.add(file);
    const read = new Set(
      toolCallsIn(source, session.ledger.all())
        .filter((call) => call.name === 'Read')
        .map((call) => filePathOf(call, session.workspace.root)),
    );
    // Only files read in the part of the transcript the view draws on; older ones were settled by the last autocompaction.
    for (const entry of session.fileState.all()) {
      if (entry.origin === 'read' && read.has(entry.path) && !visible.has(entry.path)) session.fileState.delete(entry.path);
    }
  }

  private disableAfterFailures(state: SessionState, emit: AgentSession['toolContext']['emit'], tokens: number): void {
    if (state.autocompactFailures < this.config.maxAutocompactFailures) return;
    state.autocompactOff = true;
    emit({
      type: 'compaction',
      level: 'autocompact_disabled',
      tokens_before: tokens,
      tokens_after: tokens,
      detail: `autocompaction failed ${state.autocompactFailures} times in a row and is off for the rest of this session`,
    });
  }

  private async autocompact(
    session: AgentSession,
    state: SessionState,
    trigger: CompactTrigger,
    view: Message[],
    tokens: number,
    threshold: number,
    measure: (view: Message[]) => number,
  ): Promise<{ view: Message[]; tokens: number } | undefined> {
    const result = await autocompact({
      session,
      trigger,
      system: state.system,
      view,
      config: this.config,
      restoreBudget: Math.min(this.config.restoreTotalTokens, Math.floor(threshold / 4)),
      requiredChecks: this.options.requiredChecks,
      library: state.library,
      injectedRules: [...state.injectedRules.values()],
      onCompact: this.options.onCompact,
      tokensBefore: tokens,
      measure: (head, keepFrom) => measure(buildView(session.messages, { ...state.decisions, compacted: { head, keepFrom } })),
    });
    const emit = session.toolContext.emit;
    if (!result.ok) {
      state.autocompactFailures += 1;
      emit({ type: 'compaction', level: 'autocompact_failed', tokens_before: tokens, tokens_after: tokens, detail: result.reason });
      this.disableAfterFailures(state, emit, tokens);
      return undefined;
    }
    state.decisions.compacted = { head: result.head, keepFrom: result.keepFrom };
    state.visibleAfterCompaction = result.visibleFiles;
    forgetHiddenReads(session.fileState, result.visibleFiles);
    const compacted = buildView(session.messages, state.decisions);
    const after = measure(compacted);
    // Smaller is kept, but one still over the threshold would only compact again next call: it
    // counts towards the failures that turn autocompaction off, so it cannot loop.
    const stillOver = after >= threshold;
    state.autocompactFailures = stillOver ? state.autocompactFailures + 1 : 0;
    const what = `${trigger}: ${result.keepFrom < session.messages.length ? 'history before the last exchange' : 'the whole history'} replaced by a hand-off summary; ${result.visibleFiles.size} recent file(s) shown`;
    emit({
      type: 'compaction',
      level: 'autocompact',
      tokens_before: tokens,
      tokens_after: after,
      detail: stillOver ? `${what}; still over the threshold of ${Math.round(threshold)} tokens, so it counts as a failed attempt` : what,
    });
    this.disableAfterFailures(state, emit, after);
    return { view: compacted, tokens: after };
  }
}

/** Indexes (in `source`) of messages inside spans already collapsed. */
function foldedIndexes(source: readonly Message[], decisions: ViewDecisions): Set<number> {
  const folded = new Set<number>();
  for (const span of decisions.collapsed) {
    const start = source.indexOf(span.start);
    const end = source.indexOf(span.end);
    if (start < 0 || end < start) continue;
    for (let index = start; index <= end; index += 1) folded.add(index);
  }
  return folded;
}

function spanTokens(source: readonly Message[], start: number, end: number): number {
  return estimateMessagesTokens(source.slice(start, end + 1));
}

export function createContextAssembler(options: ContextAssemblerOptions = {}): OrcaContextAssembler {
  return new OrcaContextAssembler(options);
}
