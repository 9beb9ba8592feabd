import type { AgentSession } from '../../core/loop/session.js';
import type { Message } from '../../core/model/message.js';
import { estimateMessagesTokens, estimateTokens } from '../../core/model/tokenEstimate.js';
import { collapsedText, findCollapsibleSpans } from './collapse.js';
import type { CompactionThresholds } from './compactionConfig.js';
import { forgetUnseenReads } from './forgetReads.js';
import { findClearable, placeholderFor } from './microcompact.js';
import { buildView, foldedIndexes, sourceMessages, type ViewDecisions } from './requestView.js';
import { callTokens, findSnippable } from './snip.js';
import { type ToolCall, toolCallsIn } from './toolCalls.js';

/**
 * The cheap compaction levels, run before each call, cheapest first, each at its own threshold:
 * snip → microcompact → collapse (level 1, the result budget, is in the tool pipeline; after
 * these comes autocompact, autocompactAttempts.ts). A level takes its decisions only when they
 * save at least `minSavings`; every level that changes the view emits a `compaction` event.
 */
export type CheapLevel = 'snip' | 'microcompact' | 'collapse';

export interface LadderInput {
  session: AgentSession;
  decisions: ViewDecisions;
  thresholds: CompactionThresholds;
  /** Tool results microcompact leaves intact, counted from the newest. */
  keepRecentToolResults: number;
  /** Files the last autocompaction showed again: they count as seen. */
  visibleAfterCompaction?: ReadonlySet<string>;
  /** The size of a view in tokens. */
  measure(view: Message[]): number;
}

/** Runs the levels whose thresholds the view has reached; returns the view they leave, and its size. */
export function climbCompactionLadder(input: LadderInput): { view: Message[]; tokens: number } {
  const { session, decisions, thresholds, measure } = input;
  let view = buildView(session.messages, decisions);
  let tokens = measure(view);

  const reachedLevels: CheapLevel[] = [];
  let broken = false;
  const apply = (level: CheapLevel, minSavings: number): boolean => {
    const before = tokens;
    if (!decide(level, input, minSavings)) return false;
    view = buildView(session.messages, decisions);
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
  return { view, tokens };
}

/** What the levels decide from: the part of the transcript the view draws on and its calls. */
interface LevelScope {
  source: Message[];
  calls: ToolCall[];
  folded: Set<number>;
  /** Calls no level may touch: the model has not seen their result yet, or they are already hidden. */
  untouchable(call: ToolCall): boolean;
}

/** Takes one level's new decisions when they save enough; says whether it did. */
function decide(level: CheapLevel, input: LadderInput, minSavings: number): boolean {
  const { session, decisions } = input;
  const source = sourceMessages(session.messages, decisions);
  const calls = toolCallsIn(source, session.ledger.all());
  const folded = foldedIndexes(source, decisions);
  const unseen = (call: ToolCall) => call.resultIndex === source.length - 1 || call.resultIndex < 0;
  const hidden = (call: ToolCall) => decisions.snipped.has(call.id) || folded.has(call.useIndex);
  const scope: LevelScope = { source, calls, folded, untouchable: (call) => unseen(call) || hidden(call) };
  if (level === 'snip') return takeSnip(scope, input, minSavings);
  if (level === 'microcompact') return takeMicrocompact(scope, input, minSavings);
  return takeCollapse(scope, input, minSavings);
}

function takeSnip(scope: LevelScope, { session, decisions }: LadderInput, minSavings: number): boolean {
  const found = findSnippable(scope.calls, session.workspace.root, scope.untouchable);
  if (found.length === 0 || found.reduce((sum, item) => sum + callTokens(item.call), 0) < minSavings) return false;
  for (const { call } of found) decisions.snipped.add(call.id);
  return true;
}

function takeMicrocompact(scope: LevelScope, input: LadderInput, minSavings: number): boolean {
  const { session, decisions } = input;
  const found = findClearable(scope.calls, { keep: input.keepRecentToolResults, skip: scope.untouchable });
  const placeholders = found
    .filter((call) => !decisions.cleared.has(call.id))
    .map((call) => [call, placeholderFor(call, session.workspace.root, session.toolContext.session.dir)] as const)
    .filter(([call, text]) => estimateTokens(call.result!.content) > estimateTokens(text));
  const saved = placeholders.reduce((sum, [call, text]) => sum + estimateTokens(call.result!.content) - estimateTokens(text), 0);
  if (placeholders.length === 0 || saved < minSavings) return false;
  for (const [call, text] of placeholders) decisions.cleared.set(call.id, text);
  forgetUnseenReads(session, decisions, input.visibleAfterCompaction);
  return true;
}

function takeCollapse(scope: LevelScope, input: LadderInput, minSavings: number): boolean {
  const { session, decisions } = input;
  const { source, calls, folded } = scope;
  const spans = findCollapsibleSpans(source, calls, { isFolded: (index) => folded.has(index) });
  const chosen = spans
    .map((span) => ({ span, text: collapsedText(span, source, calls, session.workspace.root) }))
    .filter(({ span, text }) => spanTokens(source, span.startIndex, span.endIndex) > estimateTokens(text));
  const saved = chosen.reduce((sum, { span, text }) => sum + spanTokens(source, span.startIndex, span.endIndex) - estimateTokens(text), 0);
  if (chosen.length === 0 || saved < minSavings) return false;
  for (const { span, text } of chosen) decisions.collapsed.push({ start: source[span.startIndex]!, end: source[span.endIndex]!, text });
  forgetUnseenReads(session, decisions, input.visibleAfterCompaction);
  return true;
}

function spanTokens(source: readonly Message[], start: number, end: number): number {
  return estimateMessagesTokens(source.slice(start, end + 1));
}
