import { describe, expect, it } from 'vitest';
import { TokenCounter } from '../../shared/context/compaction/tokenCount.js';
import { emptyUsage } from '../../shared/core/model/usage.js';

describe('token count', () => {
  it('uses the estimate until the model reports, then the report plus the estimated change', () => {
    const counter = new TokenCounter();
    const usage = emptyUsage();
    expect(counter.count(1_000, usage)).toBe(1_000);
    counter.sent(1_000, usage);
    // The model counted 1,300 for what was estimated at 1,000 (cache reads and writes count too).
    const afterFirst = { ...usage, input_tokens: 100, cache_read_tokens: 0, cache_creation_tokens: 1_200, output_tokens: 50 };
    expect(counter.count(1_500, afterFirst)).toBe(1_800);
    counter.sent(1_500, afterFirst);
    // A call that reported nothing (it failed): back to the estimate.
    expect(counter.count(1_700, afterFirst)).toBe(1_700);
    // After compaction the estimate drops: so does the count, from the reported figure.
    const afterSecond = { ...afterFirst, cache_read_tokens: 1_200, cache_creation_tokens: 1_200 + 500, input_tokens: 100 + 100 };
    expect(counter.count(900, afterSecond)).toBe(1_800 + (900 - 1_500));
  });
});
