import { describe, expect, it } from 'vitest';
import { pollUntil } from '../../shared/core/runtime/pollUntil.js';

describe('pollUntil', () => {
  it('answers at once when the first look says yes', async () => {
    let looks = 0;
    expect(await pollUntil(() => ++looks === 1, 1_000, 20)).toBe(true);
    expect(looks).toBe(1);
  });

  it('looks again until the condition holds, and says it did', async () => {
    let looks = 0;
    expect(await pollUntil(() => ++looks === 5, 5_000, 20)).toBe(true);
    expect(looks).toBe(5);
  });

  it('says no once its time has passed, having looked more than once', async () => {
    let looks = 0;
    expect(
      await pollUntil(
        () => {
          looks += 1;
          return false;
        },
        30,
        20,
      ),
    ).toBe(false);
    expect(looks).toBeGreaterThan(1);
  });
});
