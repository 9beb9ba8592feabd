import { z } from 'zod';

/** What one agent may spend before the loop stops it, each with its own end reason. */
export const AgentLimitsSchema = z.object({
  maxTurns: z.number().int().positive(),
  /**
   * Tokens over the whole session, counted by what they cost (tokenBudget.ts): input, output and
   * cache writes in full, cache reads at their price's share of an input token.
   */
  maxTokens: z.number().int().positive(),
  maxCostUsd: z.number().positive(),
  wallClockMs: z.number().int().positive(),
  /** max_tokens on each model call. */
  maxOutputTokens: z.number().int().positive(),
  /** How many invalid Reports the model may send before the session fails. */
  maxReportAttempts: z.number().int().positive(),
});
export type AgentLimits = z.infer<typeof AgentLimitsSchema>;

/**
 * Defaults that let every built-in role reach its turn limit with a 100k-token context on the
 * default model (tests/agent/budgets.test.ts computes it): the token and cost budgets stop a
 * runaway, not a long task.
 */
export const DEFAULT_LIMITS: AgentLimits = {
  maxTurns: 60,
  maxTokens: 4_000_000,
  maxCostUsd: 10,
  wallClockMs: 30 * 60_000,
  maxOutputTokens: 16_000,
  maxReportAttempts: 3,
};
