import { priceOf } from '../model/pricing.js';
import type { Usage } from '../model/usage.js';

/**
 * The tokens a session's token budget counts: what costs. Uncached input, output and cache
 * writes count in full; a cache read counts at its price's share of an uncached input token
 * (0.1 on most models, 0.05 or less on newer ones), since every turn re-reads the whole cached
 * conversation: counted in full, a 65k-token context spent 4M tokens by turn 60 while costing a
 * tenth of that. `cacheReadWeight` comes from the model's price (cacheReadWeightOf).
 */
export function budgetTokens(usage: Usage, cacheReadWeight: number): number {
  return usage.input_tokens + usage.output_tokens + usage.cache_creation_tokens + Math.round(usage.cache_read_tokens * cacheReadWeight);
}

/** What one cache-read token weighs against one uncached input token at this model's price. */
export function cacheReadWeightOf(modelId: string): number {
  const price = priceOf(modelId);
  return price.input > 0 ? price.cacheRead / price.input : 0;
}
