import { describe, expect, it } from 'vitest';
import { BUILTIN_ROLES } from '../../roles/builtinRoles.js';
import { DEFAULT_LIMITS } from '../../shared/core/loop/limits.js';
import { budgetTokens, cacheReadWeightOf } from '../../shared/core/loop/tokenBudget.js';
import { DEFAULT_MODEL } from '../../shared/core/model/modelAliases.js';
import { costOf } from '../../shared/core/model/pricing.js';
import { addUsage, emptyUsage, type Usage } from '../../shared/core/model/usage.js';

/**
 * One turn of an agent whose context has grown to 100k tokens: the whole conversation read from
 * the prompt cache, what the last turn added written to it, a little uncached input (the turn
 * reminder), and an answer with tool calls.
 */
const TURN_AT_100K: Usage = {
  input_tokens: 1_000,
  cache_read_tokens: 100_000,
  cache_creation_tokens: 5_000,
  output_tokens: 4_000,
  thinking_tokens: 0,
};

describe('the default budgets', () => {
  it.each(BUILTIN_ROLES.map((role) => [role.name, role] as const))(
    'let the %s role reach its turn limit at a 100k-token context on the default model',
    (_name, role) => {
      const limits = { ...DEFAULT_LIMITS, ...role.limits };
      let usage = emptyUsage();
      let cost = 0;
      for (let turn = 0; turn < limits.maxTurns; turn += 1) {
        usage = addUsage(usage, TURN_AT_100K);
        cost += costOf(DEFAULT_MODEL, TURN_AT_100K);
      }
      expect(budgetTokens(usage, cacheReadWeightOf(DEFAULT_MODEL))).toBeLessThan(limits.maxTokens);
      expect(cost).toBeLessThan(limits.maxCostUsd);
    },
  );

  it('count what costs: cache reads at their price share, so re-reading the context does not spend the budget', () => {
    expect(cacheReadWeightOf(DEFAULT_MODEL)).toBe(0.05);
    expect(cacheReadWeightOf('claude-opus-4-5')).toBeCloseTo(0.1);
    // Counted in full, as before, the worker's 80 turns at 100k would need 8.8M tokens of a 4M budget.
    const workerTurns = BUILTIN_ROLES.find((role) => role.name === 'worker')!.limits.maxTurns!;
    const fullCount =
      workerTurns *
      (TURN_AT_100K.input_tokens + TURN_AT_100K.cache_read_tokens + TURN_AT_100K.cache_creation_tokens + TURN_AT_100K.output_tokens);
    expect(fullCount).toBeGreaterThan(DEFAULT_LIMITS.maxTokens);
    expect(budgetTokens(TURN_AT_100K, 0.05)).toBe(1_000 + 4_000 + 5_000 + 5_000);
  });
});
