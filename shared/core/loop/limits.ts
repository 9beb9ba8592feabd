import { z } from 'zod';

/** What one agent may spend before the loop stops it, each with its own end reason. */
export const AgentLimitsSchema = z.object({
  maxTurns: z.number().int().positive(),
  /** Input (all kinds) plus output tokens over the whole session. */
  maxTokens: z.number().int().positive(),
  maxCostUsd: z.number().positive(),
  wallClockMs: z.number().int().positive(),
  /** max_tokens on each model call. */
  maxOutputTokens: z.number().int().positive(),
  /** How many invalid Reports the model may send before the session fails. */
  maxReportAttempts: z.number().int().positive(),
});
export type AgentLimits = z.infer<typeof AgentLimitsSchema>;

export const DEFAULT_LIMITS: AgentLimits = {
  maxTurns: 60,
  maxTokens: 4_000_000,
  maxCostUsd: 10,
  wallClockMs: 30 * 60_000,
  maxOutputTokens: 16_000,
  maxReportAttempts: 3,
};
