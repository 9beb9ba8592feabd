import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MODEL } from '../../shared/core/model/modelAliases.js';
import { modelFamily } from '../../shared/core/model/modelCapabilities.js';
import { costOf, hasOwnPrice, priceOf } from '../../shared/core/model/pricing.js';

/** The model ids the installed SDK lists (its `Model` type in resources/messages/messages.d.ts). */
function sdkModelIds(): string[] {
  const sdkRoot = path.dirname(createRequire(import.meta.url).resolve('@anthropic-ai/sdk'));
  const types = readFileSync(path.join(sdkRoot, 'resources', 'messages', 'messages.d.ts'), 'utf8');
  const union = /^export type Model = (.+);$/m.exec(types)?.[1];
  if (!union) throw new Error('the SDK no longer declares `export type Model = …` on one line: update this test to read its list');
  return [...union.matchAll(/'([^']+)'/g)].map((match) => match[1]!);
}

describe('model prices', () => {
  it.each([
    // id, input, output, cache read as a share of input
    ['claude-sonnet-4-6', 3, 15, 0.1],
    ['claude-sonnet-4-5-20250929', 3, 15, 0.1],
    ['claude-3-5-sonnet-latest', 3, 15, 0.1],
    ['claude-sonnet-5', 2, 10, 0.1],
    ['claude-sonnet-5-5', 2, 10, 0.05],
    ['claude-opus-5-5', 4, 20, 0.05],
    ['claude-opus-5', 5, 25, 0.1],
    ['claude-opus-4-6', 5, 25, 0.1],
    ['claude-opus-4-5-20251101', 5, 25, 0.1],
    ['claude-opus-4-1-20250805', 15, 75, 0.1],
    ['claude-opus-4-20250514', 15, 75, 0.1],
    ['claude-3-opus-20240229', 15, 75, 0.1],
    ['claude-fable-5-1', 10, 50, 0.025],
    ['claude-mythos-5', 10, 50, 0.1],
    ['claude-haiku-5-5', 0.1, 0.5, 0.1],
    ['claude-haiku-4-5-20251001', 1, 5, 0.1],
    ['claude-3-5-haiku-20241022', 0.8, 4, 0.1],
    ['claude-3-haiku-20240307', 0.25, 1.25, 0.1],
    ['anthropic.claude-sonnet-4-5-20250929-v1:0', 3, 15, 0.1],
  ])('prices %s at $%d in / $%d out per million tokens', (id, input, output, readRatio) => {
    const price = priceOf(id);
    expect(price.input).toBe(input);
    expect(price.output).toBe(output);
    expect(price.cacheWrite).toBeCloseTo(input * 1.25, 12);
    expect(price.cacheRead).toBeCloseTo(input * readRatio, 12);
  });

  it('prices an unknown model as Sonnet at $3 / $15', () => {
    expect(priceOf('my-proxy-alias')).toEqual(priceOf('claude-sonnet-4-6'));
    expect(priceOf('my-proxy-alias')).toMatchObject({ input: 3, output: 15 });
  });

  it('knows the default model by name, not through the fallback', () => {
    expect(DEFAULT_MODEL).toBe('claude-sonnet-5-5');
    expect(hasOwnPrice(DEFAULT_MODEL)).toBe(true);
    expect(priceOf(DEFAULT_MODEL)).toMatchObject({ input: 2, output: 10 });
  });

  it('has a price and a thinking family of its own for every model id the installed SDK lists', () => {
    const ids = sdkModelIds();
    expect(ids.length).toBeGreaterThan(10);
    expect(ids).toContain('claude-sonnet-5-5');
    expect(ids.filter((id) => !hasOwnPrice(id))).toEqual([]);
    expect(ids.filter((id) => modelFamily(id) === undefined)).toEqual([]);
    expect(hasOwnPrice('my-proxy-alias')).toBe(false);
  });

  it('bills thinking tokens as the output they are part of, never twice', () => {
    const base = { input_tokens: 1_000, output_tokens: 5_000, cache_read_tokens: 0, cache_creation_tokens: 0, thinking_tokens: 0 };
    const thought = { ...base, thinking_tokens: 4_000 };
    expect(costOf('claude-sonnet-5-5', thought)).toBeCloseTo((1_000 * 2 + 5_000 * 10) / 1e6, 12);
    expect(costOf('claude-sonnet-5-5', thought)).toBe(costOf('claude-sonnet-5-5', base));
  });

  it('adds the four kinds of tokens at their own prices', () => {
    const usage = {
      input_tokens: 2_000,
      output_tokens: 1_000,
      cache_read_tokens: 10_000,
      cache_creation_tokens: 4_000,
      thinking_tokens: 0,
    };
    // Opus 4.6: 5 in, 25 out, 6.25 cache write, 0.5 cache read.
    expect(costOf('claude-opus-4-6', usage)).toBeCloseTo((2_000 * 5 + 1_000 * 25 + 4_000 * 6.25 + 10_000 * 0.5) / 1e6, 12);
    expect(
      costOf('claude-opus-4-6', { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_creation_tokens: 0, thinking_tokens: 0 }),
    ).toBe(0);
  });

  it('bills a Haiku 5.5 call whose prompt passes 100,000 tokens at the higher tier, output included', () => {
    const small = { input_tokens: 50_000, output_tokens: 1_000, cache_read_tokens: 50_000, cache_creation_tokens: 0, thinking_tokens: 0 };
    const large = { ...small, cache_read_tokens: 50_001 };
    expect(costOf('claude-haiku-5-5', small)).toBeCloseTo((50_000 * 0.1 + 1_000 * 0.5 + 50_000 * 0.01) / 1e6, 12);
    expect(costOf('claude-haiku-5-5', large)).toBeCloseTo((50_000 * 0.5 + 1_000 * 2.5 + 50_001 * 0.05) / 1e6, 12);
  });
});
