import { z } from 'zod';

const tokens = z.number().int().nonnegative();

/**
 * Token counts of one model call or a sum of them, in the names the run's JSON uses.
 * `thinking_tokens` is the part of `output_tokens` the model spent thinking, where the API
 * reports it (0 otherwise): already inside `output_tokens`, which is what is billed.
 */
export const UsageSchema = z.object({
  input_tokens: tokens,
  output_tokens: tokens,
  cache_read_tokens: tokens,
  cache_creation_tokens: tokens,
  // Defaulted: usage recorded before orca counted thinking still reads.
  thinking_tokens: tokens.default(0),
});
export type Usage = z.infer<typeof UsageSchema>;

export function emptyUsage(): Usage {
  return { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_creation_tokens: 0, thinking_tokens: 0 };
}

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    cache_read_tokens: a.cache_read_tokens + b.cache_read_tokens,
    cache_creation_tokens: a.cache_creation_tokens + b.cache_creation_tokens,
    thinking_tokens: (a.thinking_tokens ?? 0) + (b.thinking_tokens ?? 0),
  };
}

/** Every input token the model saw on a call: uncached, read from cache, and written to cache. */
export function totalInputTokens(usage: Usage): number {
  return usage.input_tokens + usage.cache_read_tokens + usage.cache_creation_tokens;
}
