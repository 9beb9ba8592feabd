import type { Usage } from './usage.js';

/** US dollars per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
  /** Writing the prompt cache (5-minute entries, the only kind orca writes): 1.25× input. */
  cacheWrite: number;
  /** Reading the prompt cache: 0.1× input, less on some newer models. */
  cacheRead: number;
}

interface PriceEntry {
  match: RegExp;
  price: ModelPrice;
  /** A model billed at other rates, on every token of a call, once the call's prompt exceeds a size. */
  longPrompt?: { overTokens: number; price: ModelPrice };
}

function price(input: number, output: number, cacheReadRatio = 0.1): ModelPrice {
  return { input, output, cacheWrite: input * 1.25, cacheRead: input * cacheReadRatio };
}

/** The long-standing Sonnet list price; also the price of any id the table does not know. */
const SONNET = price(3, 15);

/**
 * Anthropic's list prices (platform.claude.com/docs/en/about-claude/pricing), first match wins:
 * a specific, differently priced id comes before its family's catch-all. Ids are matched
 * anywhere in the string, so dated ids (`claude-sonnet-4-5-20250929`) and provider-prefixed ids
 * (`anthropic.claude-…`) price the same.
 */
const PRICE_TABLE: readonly PriceEntry[] = [
  { match: /(fable|mythos)-5-1/, price: price(10, 50, 0.025) },
  { match: /fable|mythos/, price: price(10, 50) },
  { match: /opus-5-5/, price: price(4, 20, 0.05) },
  { match: /claude-3-opus|opus-4-(0|1)\b|opus-4-\d{8}|opus-4$/, price: price(15, 75) },
  { match: /opus/, price: price(5, 25) },
  // Sonnet 5.5 cache reads were cut from 0.1× to 0.05× input on 2026-10-07.
  { match: /sonnet-5-5/, price: price(2, 10, 0.05) },
  { match: /sonnet-5\b/, price: price(2, 10) },
  { match: /sonnet/, price: SONNET },
  { match: /haiku-5-5/, price: price(0.1, 0.5), longPrompt: { overTokens: 100_000, price: price(0.5, 2.5) } },
  { match: /claude-3-haiku/, price: price(0.25, 1.25) },
  { match: /claude-3-5-haiku/, price: price(0.8, 4) },
  { match: /haiku/, price: price(1, 5) },
];

/**
 * The price of one call to a model: `promptTokens` (input, cache reads and cache writes) picks
 * the tier of a model priced by prompt size. An id no entry matches (a new family, a proxy's
 * alias) is priced as Sonnet at $3 / $15, the dearer Sonnet tier, so a budget errs toward
 * stopping early rather than late.
 */
export function priceOf(modelId: string, promptTokens = 0): ModelPrice {
  const entry = priceEntry(modelId);
  if (!entry) return SONNET;
  return entry.longPrompt && promptTokens > entry.longPrompt.overTokens ? entry.longPrompt.price : entry.price;
}

function priceEntry(modelId: string): PriceEntry | undefined {
  const id = modelId.toLowerCase();
  return PRICE_TABLE.find((candidate) => candidate.match.test(id));
}

/** Whether the table has a price of its own for this id (otherwise it is priced as Sonnet, and orca says so once). */
export function hasOwnPrice(modelId: string): boolean {
  return priceEntry(modelId) !== undefined;
}

/** US dollars for one call's usage at the model's prices. Thinking tokens are inside `output_tokens`, billed as output. */
export function costOf(modelId: string, usage: Usage): number {
  const p = priceOf(modelId, usage.input_tokens + usage.cache_read_tokens + usage.cache_creation_tokens);
  return (
    (usage.input_tokens * p.input +
      usage.output_tokens * p.output +
      usage.cache_creation_tokens * p.cacheWrite +
      usage.cache_read_tokens * p.cacheRead) /
    1_000_000
  );
}
