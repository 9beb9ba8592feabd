import { ModelError } from './modelError.js';
import type { Effort, ThinkingSetting } from './thinking.js';

/**
 * What each model family of the SDK's model list accepts for thinking and effort, and how it
 * treats thinking blocks sent back, from Anthropic's model pages and migration guides
 * (platform.claude.com/docs/en/models/…, build-with-claude/adaptive-thinking, preserved-thinking).
 * First match wins, so a specific family comes before a broader one. An id no family matches (a
 * proxy's name, a model newer than this table) gets what was asked, as asked, and the API decides.
 */
export interface ModelFamily {
  match: RegExp;
  /** `thinking: {type: "adaptive"}` is accepted. */
  adaptive: boolean;
  /** `thinking: {type: "enabled", budget_tokens}` is accepted. */
  budget: boolean;
  /** How thinking is turned off, or null when this family always thinks. */
  off: 'disabled' | 'between_tools' | null;
  /** The API returns thinking text only when asked (`display: "summarized"`); otherwise the text is empty. */
  omitsThinkingText: boolean;
  /**
   * Thinking blocks are bound to everything before them: a block sent back after an earlier part
   * of the conversation changed (a compaction) fails the API's prefix check unless the request
   * asks for such blocks to be dropped.
   */
  boundThinking: boolean;
  /** `output_config.effort` is accepted. */
  effort: boolean;
}

const always = { adaptive: true, budget: false, off: null, omitsThinkingText: true, effort: true } as const;

export const MODEL_FAMILIES: readonly ModelFamily[] = [
  { match: /(fable|mythos)-5-[12]\b/, ...always, boundThinking: true },
  { match: /opus-5-5\b/, ...always, boundThinking: true },
  { match: /sonnet-5-5\b/, ...always, off: 'between_tools', boundThinking: true },
  { match: /haiku-5-5\b/, ...always, off: 'disabled', boundThinking: true },
  { match: /(fable|mythos)-5\b/, ...always, boundThinking: false },
  { match: /(opus|sonnet)-5\b/, ...always, off: 'disabled', boundThinking: false },
  { match: /opus-4-[78]\b/, ...always, off: 'disabled', boundThinking: false },
  { match: /mythos-preview/, ...always, budget: true, boundThinking: false },
  {
    match: /(opus|sonnet)-4-6\b/,
    adaptive: true,
    budget: true,
    off: 'disabled',
    omitsThinkingText: false,
    boundThinking: false,
    effort: true,
  },
  { match: /opus-4-5\b/, adaptive: false, budget: true, off: 'disabled', omitsThinkingText: false, boundThinking: false, effort: true },
  { match: /claude-/, adaptive: false, budget: true, off: 'disabled', omitsThinkingText: false, boundThinking: false, effort: false },
];

/**
 * The context window orca plans compaction for, in tokens: 200,000 for every family in the table.
 * Claude 4.x models open 1,000,000 only with the `context-1m` beta header, which orca does not
 * send; a family with a larger window by default gets its own entry here. An id the table does
 * not know gets the same 200,000: compacting early is safe, compacting late is an API error
 * (handled, but lossy: reactive compaction).
 */
const CONTEXT_WINDOWS: ReadonlyArray<{ match: RegExp; tokens: number }> = [{ match: /claude-|fable|mythos/, tokens: 200_000 }];
export const DEFAULT_CONTEXT_WINDOW = 200_000;

export function contextWindowOf(modelId: string): number {
  const id = modelId.toLowerCase();
  return CONTEXT_WINDOWS.find((entry) => entry.match.test(id))?.tokens ?? DEFAULT_CONTEXT_WINDOW;
}

export function modelFamily(modelId: string): ModelFamily | undefined {
  const id = modelId.toLowerCase();
  return MODEL_FAMILIES.find((family) => family.match.test(id));
}

/**
 * The models the API's tool-search tool (`tool_search_tool_bm25_20251119`, with `defer_loading`)
 * is available on, from its page (platform.claude.com/docs/en/agents-and-tools/tool-use/tool-search-tool):
 * Claude 5 and later, Haiku 4.5, Opus 4.5 to 4.8, Sonnet 4.5 and 4.6, Mythos Preview.
 */
const TOOL_SEARCH_MODELS =
  /(fable|mythos)-5(-[12])?\b|mythos-preview|opus-5(-5)?\b|sonnet-5(-5)?\b|haiku-5-5\b|haiku-4-5\b|opus-4-[5-8]\b|sonnet-4-[56]\b/;

export function supportsToolSearch(modelId: string): boolean {
  return TOOL_SEARCH_MODELS.test(modelId.toLowerCase());
}

/** The `thinking` request field, in the API's shape. */
export type ThinkingParam =
  | { type: 'adaptive'; display?: 'summarized'; block_binding?: { prefix_mismatch_behavior: 'drop_block' } }
  | { type: 'enabled'; budget_tokens: number; display?: 'summarized'; block_binding?: { prefix_mismatch_behavior: 'drop_block' } }
  | { type: 'disabled' }
  | { type: 'between_tools' };

/** What a model's calls carry for thinking and effort, worked out once per agent. */
export interface ThinkingRequest {
  /** Left out: the API's own default for the model. */
  thinking?: ThinkingParam;
  effort?: Effort;
  /** Added to each call's max_tokens: a fixed thinking budget, so the answer keeps the room orca's limits give it. */
  extraMaxTokens: number;
  /** The beta header that lets `block_binding` ask for blocks failing the prefix check to be dropped. */
  betas: string[];
  /** How the agent's thinking was set, in one phrase, for the transcript. */
  describe: string;
}

export const THINKING_BINDING_BETA = 'thinking-binding-controls-2026-08-01';

/**
 * The thinking and effort fields for `modelId`: what was asked, or the family's default
 * (adaptive where the family has it, else none), checked against what the family accepts so a
 * request the API would refuse fails here, in one line, before any call.
 */
export function thinkingRequest(modelId: string, setting?: ThinkingSetting, effort?: Effort): ThinkingRequest {
  const family = modelFamily(modelId);
  const fail = (problem: string): never => {
    throw new ModelError('config', `${modelId} ${problem}`);
  };
  if (effort && family && !family.effort) fail(`does not take an effort level: leave --effort (or the role's effort) unset`);
  const wanted = setting ?? (family?.adaptive ? { type: 'adaptive' as const } : undefined);
  const base = { effort, extraMaxTokens: 0, betas: [] as string[] };
  if (!wanted) return { ...base, describe: "the model's default" };
  const display = family?.omitsThinkingText ? { display: 'summarized' as const } : {};
  const binding = family?.boundThinking ? { block_binding: { prefix_mismatch_behavior: 'drop_block' as const } } : {};
  const betas = family?.boundThinking ? [THINKING_BINDING_BETA] : [];
  switch (wanted.type) {
    case 'adaptive':
      if (family && !family.adaptive) fail('does not support adaptive thinking: use --thinking enabled:<budget> or off');
      return { ...base, betas, thinking: { type: 'adaptive', ...display, ...binding }, describe: 'adaptive' };
    case 'enabled':
      if (family && !family.budget) fail('does not take a thinking budget: use --thinking adaptive, and --effort for how much it thinks');
      return {
        ...base,
        betas,
        thinking: { type: 'enabled', budget_tokens: wanted.budgetTokens, ...display, ...binding },
        extraMaxTokens: wanted.budgetTokens,
        describe: `a budget of ${wanted.budgetTokens} tokens`,
      };
    case 'off': {
      if (family && family.off === null) fail('always thinks: --thinking off is not accepted; a lower --effort makes it think less');
      const off = family?.off ?? 'disabled';
      return { ...base, thinking: { type: off }, describe: off === 'between_tools' ? 'off (notes between tool calls only)' : 'off' };
    }
  }
}
