import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { mapLimited } from '../../shared/core/runtime/mapLimited.js';

describe('mapLimited', () => {
  it('runs at most `limit` calls at once and gives the results in the items order', async () => {
    let running = 0;
    let most = 0;
    const results = await mapLimited([30, 5, 20, 1, 10, 2, 15], 3, async (ms) => {
      running += 1;
      most = Math.max(most, running);
      await sleep(ms);
      running -= 1;
      return ms * 2;
    });
    expect(results).toEqual([60, 10, 40, 2, 20, 4, 30]);
    expect(most).toBe(3);
  });

  it('throws the first failure in the items order, only once every call has settled', async () => {
    const ended: number[] = [];
    const run = mapLimited([1, 2, 3, 4], 2, async (n) => {
      await sleep(n === 3 ? 1 : 20);
      ended.push(n);
      if (n >= 3) throw new Error(`failed ${n}`);
      return n;
    });
    await expect(run).rejects.toThrow('failed 3');
    expect(ended.sort()).toEqual([1, 2, 3, 4]);
  });

  it('with no items calls nothing', async () => {
    expect(await mapLimited([], 4, async () => 1)).toEqual([]);
  });
});
