import type { ContentBlock, Message, TextBlock } from '../../core/model/message.js';

/**
 * The messages the model is sent: built fresh for every call from the stored transcript and the
 * compaction decisions taken so far, never by editing the transcript (which keeps everything).
 * Decisions only accumulate and the build is deterministic, so between two decisions each view
 * extends the previous one byte for byte and the prompt cache keeps hitting.
 *
 * The view keeps what the Messages API requires: it starts with a user message, roles alternate,
 * every tool_use has its tool_result in the next message and each user message lists its
 * tool_results before any text. An assistant turn keeps its thinking blocks exactly as received, in
 * their place: a level either keeps a turn with its thinking or takes the whole turn away (a
 * collapsed span, the history before an autocompaction, a turn whose every call was snipped),
 * never a turn's tool calls without the thinking that led to them.
 */
export type ExtraKind = 'reminder' | 'rule';

/** A text block the host attached to a stored message (the per-turn reminder, an injected rule). */
export interface Extra {
  kind: ExtraKind;
  block: TextBlock;
}

/** A finished stretch of the transcript shown as one line (collapse.ts). */
export interface CollapsedSpan {
  /** The assistant message the span starts with and the user message it ends with. */
  start: Message;
  end: Message;
  text: string;
}

export interface ViewDecisions {
  /** The context message (instructions, rules, skills), first in the view. */
  contextText?: string;
  extras: WeakMap<Message, Extra[]>;
  /** Tool calls dropped from the view with their results (snip.ts). */
  snipped: Set<string>;
  /** Tool results shown as a one-line placeholder (microcompact.ts). */
  cleared: Map<string, string>;
  collapsed: CollapsedSpan[];
  /**
   * After an autocompaction: the hand-off blocks, then the transcript from index `keepFrom` on
   * (the transcript only grows, so an index stays valid).
   */
  compacted?: { head: TextBlock[]; keepFrom: number };
}

export function emptyDecisions(): ViewDecisions {
  return { extras: new WeakMap(), snipped: new Set(), cleared: new Map(), collapsed: [] };
}

/** The stored messages the view draws on: all of them, or those after the last autocompaction. */
export function sourceMessages(all: readonly Message[], decisions: ViewDecisions): Message[] {
  return decisions.compacted ? all.slice(decisions.compacted.keepFrom) : [...all];
}

/** Indexes (in `source`) of messages inside spans already collapsed. */
export function foldedIndexes(source: readonly Message[], decisions: ViewDecisions): Set<number> {
  const folded = new Set<number>();
  for (const span of decisions.collapsed) {
    const start = source.indexOf(span.start);
    const end = source.indexOf(span.end);
    if (start < 0 || end < start) continue;
    for (let index = start; index <= end; index += 1) folded.add(index);
  }
  return folded;
}

export function buildView(all: readonly Message[], decisions: ViewDecisions): Message[] {
  const source = sourceMessages(all, decisions);
  const context: TextBlock[] = decisions.contextText ? [{ type: 'text', text: decisions.contextText }] : [];
  const out: Message[] = [];
  if (decisions.compacted) out.push({ role: 'user', content: [...context, ...decisions.compacted.head] });

  const spans = new Map(decisions.collapsed.map((span) => [span.start, span]));
  for (let index = 0; index < source.length; index += 1) {
    const message = source[index]!;
    const span = spans.get(message);
    const end = span ? source.indexOf(span.end, index) : -1;
    const previous = out.at(-1);
    if (span && end > index && previous?.role === 'user') {
      // Rules injected inside the span stay in force: they move with the span's line.
      const rules = source
        .slice(index, end + 1)
        .flatMap((inner) => (decisions.extras.get(inner) ?? []).filter((extra) => extra.kind === 'rule'));
      previous.content = [...previous.content, { type: 'text', text: span.text }, ...rules.map((extra) => extra.block)];
      index = end;
      continue;
    }
    const content: ContentBlock[] = [...message.content, ...(decisions.extras.get(message) ?? []).map((extra) => extra.block)];
    if (out.length === 0 && message.role === 'user') content.unshift(...context);
    out.push({ role: message.role, content });
  }

  for (const message of out) {
    const kept = message.content
      .filter((block) => {
        if (block.type === 'tool_use') return !decisions.snipped.has(block.id);
        if (block.type === 'tool_result') return !decisions.snipped.has(block.tool_use_id);
        return true;
      })
      .map((block) => {
        if (block.type !== 'tool_result') return block;
        const placeholder = decisions.cleared.get(block.tool_use_id);
        if (placeholder === undefined) return block;
        // A cleared result's images go with its text: the placeholder stands for both.
        const { images: _images, ...rest } = block;
        return { ...rest, content: placeholder };
      });
    // A turn whose every call was snipped goes whole: its thinking alone would be a turn of nothing.
    const onlyThinking = kept.every((block) => block.type === 'thinking' || block.type === 'redacted_thinking');
    message.content = kept.length < message.content.length && onlyThinking ? [] : kept;
  }
  return normalize(out);
}

/** Empty messages dropped, neighbours of the same role merged, tool_results first in user messages. */
function normalize(messages: Message[]): Message[] {
  const out: Message[] = [];
  for (const message of messages) {
    if (message.content.length === 0) continue;
    const previous = out.at(-1);
    if (previous && previous.role === message.role) previous.content = [...previous.content, ...message.content];
    else out.push({ role: message.role, content: [...message.content] });
  }
  for (const message of out) {
    if (message.role !== 'user') continue;
    const results = message.content.filter((block) => block.type === 'tool_result');
    if (results.length > 0) message.content = [...results, ...message.content.filter((block) => block.type !== 'tool_result')];
  }
  return out;
}

/**
 * Cache breakpoints on the view: the last block of the last message (this call's whole prefix is
 * written to the cache) and the last block of the user message before it (where the previous
 * call's prefix ended, so it is found even when this turn added more than the API's 20-block
 * look-back). With the tools and the static system block that makes four, the API's limit.
 * Marked blocks are copies: the transcript's blocks are never touched.
 */
export function withCacheBreakpoints(view: Message[]): Message[] {
  const marked = view.map((message) => ({ ...message, content: [...message.content] }));
  const users = marked.map((message, index) => (message.role === 'user' ? index : -1)).filter((index) => index >= 0);
  const targets = [...new Set<number>([marked.length - 1, ...users.slice(-2)])].sort((a, b) => b - a);
  let placed = 0;
  for (const index of targets) {
    if (placed === 2) break;
    const message = marked[index];
    const last = message?.content.at(-1);
    // Only text and tool results carry a mark: thinking blocks go back exactly as received (the
    // API refuses cache_control on them), and a paused assistant turn ends with one.
    if (!message || !last || (last.type !== 'text' && last.type !== 'tool_result')) continue;
    message.content[message.content.length - 1] = { ...last, cache_control: { type: 'ephemeral' } };
    placed += 1;
  }
  return marked;
}
