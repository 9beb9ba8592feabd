import { createHash, createHmac, randomBytes } from 'node:crypto';

/**
 * The Messages API's rules on a request, as the local stand-in (messagesServer.ts) enforces them:
 * what a real model answers with a 400, checked on every request before any behaviour is played.
 * Written from the API's documentation and error messages, independently of orca's own model
 * table, so a test fails when orca's idea of the API is wrong, not only when its code is.
 *
 * - Structure: the first turn is the user's; consecutive turns of one role count as one (as the
 *   API merges them); every tool_use is answered by a tool_result at the start of the next turn
 *   and every tool_result answers a tool_use of the turn before; a request holding either defines
 *   tools; text blocks are not empty; at most four
 *   cache_control breakpoints, none on a thinking block; a model without prefill refuses a
 *   conversation ending with an assistant turn, unless that turn is one the stand-in paused.
 * - Thinking settings: the model accepts the thinking type; a budget is at least 1024 and below
 *   max_tokens; `block_binding` needs its beta header; effort is one of the API's levels.
 * - Thinking blocks, when the request thinks: each comes back exactly as minted (text and
 *   signature, redacted data); every assistant turn that used a tool the stand-in answered with
 *   thinking carries that thinking, in order, before the tool_use; on a model that binds thinking
 *   to the conversation, nothing before a block changed since it was minted (else a 400, or the
 *   block dropped and reported when the request asks for `drop_block`).
 * - Size: with a context window set, a prompt over it is "prompt is too long".
 */

export interface StandInModel {
  /** Thinking types the model accepts. */
  accepts: ReadonlyArray<'adaptive' | 'enabled' | 'disabled' | 'between_tools'>;
  /** A request without `thinking` thinks. */
  thinksByDefault: boolean;
  /** Thinking text is returned empty unless the request asks for `display: "summarized"`. */
  omitsThinkingText: boolean;
  /** Thinking blocks are bound to everything before them. */
  bindsThinking: boolean;
  /** A conversation may end with an assistant turn for the model to continue. */
  prefill: boolean;
}

const CLASSIC: StandInModel = {
  accepts: ['enabled', 'disabled'],
  thinksByDefault: false,
  omitsThinkingText: false,
  bindsThinking: false,
  prefill: true,
};

/** The models tests use, as the API's documentation describes them; any other id is treated leniently. */
const MODELS: Array<[RegExp, StandInModel]> = [
  [
    /sonnet-5-5/,
    { accepts: ['adaptive', 'between_tools'], thinksByDefault: true, omitsThinkingText: true, bindsThinking: true, prefill: false },
  ],
  [
    /opus-5-5|fable-5-[12]|mythos-5-[12]/,
    { accepts: ['adaptive'], thinksByDefault: true, omitsThinkingText: true, bindsThinking: true, prefill: false },
  ],
  [/haiku-5-5/, { accepts: ['adaptive', 'disabled'], thinksByDefault: true, omitsThinkingText: true, bindsThinking: true, prefill: false }],
  [
    /(opus|sonnet)-5\b/,
    { accepts: ['adaptive', 'disabled'], thinksByDefault: true, omitsThinkingText: true, bindsThinking: false, prefill: false },
  ],
  [/(opus|sonnet)-4-6/, { ...CLASSIC, accepts: ['adaptive', 'enabled', 'disabled'] }],
  [/(haiku|sonnet|opus)-4-5/, CLASSIC],
];

const LENIENT: StandInModel = {
  accepts: ['adaptive', 'enabled', 'disabled', 'between_tools'],
  thinksByDefault: false,
  omitsThinkingText: false,
  bindsThinking: false,
  prefill: true,
};

export function standInModel(id: string): StandInModel {
  return MODELS.find(([match]) => match.test(id))?.[1] ?? LENIENT;
}

export const BINDING_BETA = 'thinking-binding-controls-2026-08-01';
const EFFORTS = ['low', 'medium', 'high', 'xhigh', 'max'];

// biome-ignore lint/suspicious/noExplicitAny: request bodies are checked field by field, as the API does.
type Json = any;

/** A block of an answer the stand-in streamed, in the form it must come back in. */
export interface MintedAnswer {
  /** The answer's blocks as the API would expect them back (thinking text as it was shown). */
  blocks: Json[];
  stopReason: string;
}

export interface RequestVerdict {
  /** A 400's message, when the request is refused. */
  error?: string;
  /** Thinking blocks the request asked to drop (`drop_block`) that failed the prefix check. */
  dropped: Array<{ type: 'thinking_dropped'; path: string; reason: 'prefix_binding_mismatch' }>;
  /** Whether the request thinks: an answer may carry thinking blocks. */
  thinks: boolean;
  /** Whether thinking text is shown (`display: "summarized"`, or a model that shows it anyway). */
  showsThinkingText: boolean;
  /** The merged conversation, what an answer's signatures are bound to. */
  messages: Json[];
}

/** What the stand-in remembers of its answers, to check them when they come back. */
export class ThinkingLedger {
  private readonly key = randomBytes(16);
  /** Signatures minted, with what they were minted over. */
  private readonly signatures = new Map<string, { thinking: string; prefix: string }>();
  private readonly redacted = new Set<string>();
  /** For each tool_use id answered: the thinking blocks (signatures or redacted data) of its answer, in order. */
  private readonly thinkingOfToolUse = new Map<string, string[]>();
  /** The last block of each paused answer (canonical), which a conversation may end with. */
  private readonly pausedEnds = new Set<string>();

  /** A signature for a thinking block minted at this point of a conversation. */
  mint(thinking: string, prefix: string): string {
    const signature = createHmac('sha256', this.key).update(prefix).update('\u0000').update(thinking).digest('base64');
    this.signatures.set(signature, { thinking, prefix });
    return signature;
  }

  /** An answer has been streamed: its thinking and tool uses are remembered. */
  record(answer: MintedAnswer): void {
    const thinking = answer.blocks.filter(isThinking).map(thinkingIdentity);
    for (const block of answer.blocks) {
      if (block.type === 'redacted_thinking') this.redacted.add(block.data);
      if (block.type === 'tool_use' && thinking.length > 0) this.thinkingOfToolUse.set(block.id, thinking);
    }
    if (answer.stopReason === 'pause_turn' && answer.blocks.length > 0) this.pausedEnds.add(canonical(answer.blocks.at(-1)));
  }

  /** A request checked by the rules above. */
  check(body: Json, headers: Record<string, string | string[] | undefined>, options: { contextWindowTokens?: number }): RequestVerdict {
    const verdict: RequestVerdict = { dropped: [], thinks: false, showsThinkingText: true, messages: [] };
    const refuse = (error: string): RequestVerdict => ({ ...verdict, error });
    if (!body || typeof body !== 'object') return refuse('the request body is not a JSON object');
    if (typeof body.model !== 'string' || body.model === '') return refuse('model: Field required');
    if (!Number.isInteger(body.max_tokens) || body.max_tokens < 1) return refuse('max_tokens: Input should be a positive integer');
    if (!Array.isArray(body.messages) || body.messages.length === 0) return refuse('messages: at least one message is required');
    const model = standInModel(body.model);

    const thinking = body.thinking as Json;
    if (thinking !== undefined) {
      if (!model.accepts.includes(thinking.type)) {
        return refuse(
          `"thinking.type.${thinking.type}" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.`,
        );
      }
      if (thinking.type === 'enabled') {
        if (!Number.isInteger(thinking.budget_tokens) || thinking.budget_tokens < 1024) {
          return refuse('thinking.enabled.budget_tokens: Input should be greater than or equal to 1024');
        }
        if (thinking.budget_tokens >= body.max_tokens) {
          return refuse(
            '`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size',
          );
        }
      }
      if (thinking.block_binding !== undefined && !betas(headers).includes(BINDING_BETA)) {
        return refuse(
          `thinking.${thinking.type}.block_binding: Extra inputs are not permitted (it needs the anthropic-beta header ${BINDING_BETA})`,
        );
      }
    }
    const effort = body.output_config?.effort;
    if (effort !== undefined && !EFFORTS.includes(effort)) {
      return refuse(`output_config.effort: Input should be ${EFFORTS.map((level) => `'${level}'`).join(', ')}`);
    }
    verdict.thinks = thinking === undefined ? model.thinksByDefault : thinking.type !== 'disabled';
    verdict.showsThinkingText = !model.omitsThinkingText || thinking?.display === 'summarized';

    const messages = mergeTurns(body.messages);
    verdict.messages = messages;
    if (messages[0].role !== 'user') return refuse('messages: first message must use the "user" role');

    let breakpoints = 0;
    const count = (block: Json) => {
      if (block && typeof block === 'object' && block.cache_control) breakpoints += 1;
    };
    for (const block of Array.isArray(body.system) ? body.system : []) count(block);
    for (const tool of Array.isArray(body.tools) ? body.tools : []) count(tool);
    for (const [i, message] of messages.entries()) {
      for (const [j, block] of message.content.entries()) {
        count(block);
        if (block.type === 'text' && (typeof block.text !== 'string' || block.text === '')) {
          return refuse(`messages.${i}.content.${j}: text content blocks must be non-empty`);
        }
        if (isThinking(block) && block.cache_control)
          return refuse(`messages.${i}.content.${j}.${block.type}.cache_control: Extra inputs are not permitted`);
      }
    }
    if (breakpoints > 4) return refuse(`A maximum of 4 blocks with cache_control may be provided. Found ${breakpoints}.`);

    const pairing = checkToolPairing(messages);
    if (pairing) return refuse(pairing);
    const usesTools = messages.some((message: Json) =>
      message.content.some((block: Json) => block.type === 'tool_use' || block.type === 'tool_result'),
    );
    if (usesTools && !(Array.isArray(body.tools) && body.tools.length > 0)) {
      return refuse('Requests which include `tool_use` or `tool_result` blocks must define tools.');
    }
    if (body.tool_choice !== undefined && !['auto', 'none', 'any', 'tool'].includes(body.tool_choice?.type)) {
      return refuse("tool_choice.type: Input should be 'auto', 'any', 'tool' or 'none'");
    }

    const last = messages.at(-1);
    if (last.role === 'assistant' && !model.prefill && !this.pausedEnds.has(canonical(last.content.at(-1)))) {
      return refuse('This model does not support assistant message prefill. The conversation must end with a user message.');
    }

    if (verdict.thinks) {
      const problem = this.checkThinking(body, messages, model, verdict);
      if (problem) return refuse(problem);
    }

    if (options.contextWindowTokens !== undefined) {
      const tokens = Math.ceil(JSON.stringify({ system: body.system, tools: body.tools, messages: body.messages }).length / 4);
      if (tokens > options.contextWindowTokens)
        return refuse(`prompt is too long: ${tokens} tokens > ${options.contextWindowTokens} maximum`);
    }
    return verdict;
  }

  /** The prefix a block at messages[i].content[j] is bound to. */
  prefixAt(body: Json, messages: Json[], i: number, j: number): string {
    return prefixOf(body, messages.slice(0, i), messages[i]?.content.slice(0, j) ?? []);
  }

  private checkThinking(body: Json, messages: Json[], model: StandInModel, verdict: RequestVerdict): string | undefined {
    const dropBlocks = body.thinking?.block_binding?.prefix_mismatch_behavior === 'drop_block';
    for (const [i, message] of messages.entries()) {
      if (message.role !== 'assistant') continue;
      let droppingRun = false;
      for (const [j, block] of message.content.entries()) {
        if (!isThinking(block)) {
          droppingRun = false;
          continue;
        }
        if (block.type === 'redacted_thinking') {
          if (!this.redacted.has(block.data)) return `messages.${i}.content.${j}: Invalid \`data\` in \`redacted_thinking\` block`;
        } else {
          const minted = this.signatures.get(block.signature);
          if (!minted || minted.thinking !== block.thinking)
            return `messages.${i}.content.${j}: Invalid \`signature\` in \`thinking\` block`;
          if (model.bindsThinking && (droppingRun || minted.prefix !== this.prefixAt(body, messages, i, j))) {
            if (!dropBlocks) {
              return `messages.${i}.content.${j}: Invalid \`signature\` in \`thinking\` block. The block is bound to a different conversation. Remove the block, or set \`thinking.block_binding.prefix_mismatch_behavior\` to "drop_block".`;
            }
            // The rest of the turn's consecutive thinking blocks go with it.
            droppingRun = true;
            verdict.dropped.push({ type: 'thinking_dropped', path: `messages.${i}.content.${j}`, reason: 'prefix_binding_mismatch' });
          }
        }
      }
      // Every tool the stand-in answered with thinking comes back after that thinking.
      const present = message.content.filter(isThinking).map(thinkingIdentity);
      const lastAssistant = messages.findLastIndex((candidate: Json) => candidate.role === 'assistant') === i;
      for (const [j, block] of message.content.entries()) {
        if (block.type !== 'tool_use') continue;
        const expected = this.thinkingOfToolUse.get(block.id);
        if (!expected) continue;
        const before = message.content.slice(0, j).filter(isThinking).map(thinkingIdentity);
        if (!containsInOrder(before, expected)) {
          if (lastAssistant && present.length === 0) {
            return `messages.${i}.content.0: Expected \`thinking\` or \`redacted_thinking\`, but found \`${message.content[0]?.type}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking`;
          }
          return `messages.${i}.content.${j}: the thinking blocks this \`tool_use\` was produced with are missing or out of order: thinking blocks must be passed back unmodified and in their original order`;
        }
      }
    }
    return undefined;
  }
}

/** The request's conversation up to a point, in a canonical form (cache_control left out, as the API's check does). */
export function prefixOf(body: Json, before: Json[], partial: Json[]): string {
  const digest = createHash('sha256');
  digest.update(canonical({ system: body.system ?? null, tools: body.tools ?? null }));
  for (const message of before) digest.update(canonical({ role: message.role, content: message.content }));
  digest.update(canonical({ role: 'assistant', partial }));
  return digest.digest('hex');
}

/** Consecutive messages of one role merged into one, their content as block arrays. */
export function mergeTurns(messages: Json[]): Json[] {
  const out: Json[] = [];
  for (const message of messages) {
    const content = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : [...(message.content ?? [])];
    const previous = out.at(-1);
    if (previous && previous.role === message.role) previous.content.push(...content);
    else out.push({ role: message.role, content });
  }
  return out;
}

function checkToolPairing(messages: Json[]): string | undefined {
  for (const [i, message] of messages.entries()) {
    if (message.role === 'assistant') {
      const uses: string[] = message.content.filter((block: Json) => block.type === 'tool_use').map((block: Json) => block.id);
      if (uses.length === 0 || i === messages.length - 1) continue;
      const next = messages[i + 1];
      const answered = new Set(next.content.filter((block: Json) => block.type === 'tool_result').map((block: Json) => block.tool_use_id));
      const missing = uses.filter((id) => !answered.has(id));
      if (missing.length > 0) {
        return `messages.${i + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
      }
      const leading = next.content.findIndex((block: Json) => block.type !== 'tool_result');
      if (leading >= 0 && leading < uses.length) {
        return `messages.${i + 1}: Did not find ${uses.length} \`tool_result\` block(s) at the beginning of this message. Messages following \`tool_use\` blocks must begin with a matching number of \`tool_result\` blocks.`;
      }
    } else {
      const previous = messages[i - 1];
      const asked = new Set(
        previous ? previous.content.filter((block: Json) => block.type === 'tool_use').map((block: Json) => block.id) : [],
      );
      for (const [j, block] of message.content.entries()) {
        if (block.type === 'tool_result' && !asked.has(block.tool_use_id)) {
          return `messages.${i}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${block.tool_use_id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
        }
      }
    }
  }
  return undefined;
}

function betas(headers: Record<string, string | string[] | undefined>): string[] {
  const raw = headers['anthropic-beta'];
  return (Array.isArray(raw) ? raw.join(',') : (raw ?? '')).split(',').map((beta) => beta.trim());
}

function isThinking(block: Json): boolean {
  return block?.type === 'thinking' || block?.type === 'redacted_thinking';
}

function thinkingIdentity(block: Json): string {
  return block.type === 'thinking' ? `thinking:${block.signature}` : `redacted:${block.data}`;
}

function containsInOrder(have: string[], want: string[]): boolean {
  let at = 0;
  for (const item of have) if (item === want[at]) at += 1;
  return at === want.length;
}

/** JSON with sorted keys and no cache_control, so two forms of one block compare equal. */
export function canonical(value: Json): string {
  return JSON.stringify(strip(value));
}

function strip(value: Json): Json {
  if (Array.isArray(value)) return value.map(strip);
  if (value && typeof value === 'object') {
    const out: Record<string, Json> = {};
    for (const key of Object.keys(value).sort()) if (key !== 'cache_control' && value[key] !== undefined) out[key] = strip(value[key]);
    return out;
  }
  return value;
}
