import { z } from 'zod';

/**
 * How much an agent's model thinks, as a user writes it (`--thinking`, a role's `thinking:`) and
 * as a job carries it: `adaptive` (the model decides when and how much), `enabled:<budget>` (a
 * fixed budget of thinking tokens per call, at least 1024, on models that take one) or `off`.
 * modelCapabilities.ts turns it into what a given model accepts.
 */
export type ThinkingSetting = { type: 'adaptive' } | { type: 'enabled'; budgetTokens: number } | { type: 'off' };

/** The API's least thinking budget. */
export const MIN_THINKING_BUDGET = 1024;

export const THINKING_FORMS = `adaptive, enabled:<budget> (a whole number of tokens, at least ${MIN_THINKING_BUDGET}) or off`;

/** The setting a text names, or the one-line reason it names none. */
export function parseThinking(text: string): { ok: true; setting: ThinkingSetting } | { ok: false; problem: string } {
  const value = text.trim().toLowerCase();
  if (value === 'adaptive') return { ok: true, setting: { type: 'adaptive' } };
  if (value === 'off' || value === 'disabled') return { ok: true, setting: { type: 'off' } };
  const budget = /^enabled:(\d+)$/.exec(value)?.[1];
  if (budget !== undefined) {
    const budgetTokens = Number(budget);
    if (budgetTokens >= MIN_THINKING_BUDGET && Number.isSafeInteger(budgetTokens))
      return { ok: true, setting: { type: 'enabled', budgetTokens } };
    return { ok: false, problem: `a thinking budget must be a whole number of tokens, at least ${MIN_THINKING_BUDGET} (got ${budget})` };
  }
  return { ok: false, problem: `"${text}" is not a thinking setting: use ${THINKING_FORMS}` };
}

/** The setting in its written form, as the job payload carries it. */
export const ThinkingOptionSchema = z.string().superRefine((text, ctx) => {
  const parsed = parseThinking(text);
  if (!parsed.ok) ctx.addIssue({ code: 'custom', message: parsed.problem });
});

/** The setting a checked text (a job's, a role's) names; none for none. */
export function optionalThinking(text: string | undefined): ThinkingSetting | undefined {
  if (text === undefined) return undefined;
  const parsed = parseThinking(text);
  if (!parsed.ok) throw new Error(parsed.problem);
  return parsed.setting;
}

/** The API's effort levels (`output_config.effort`): how thorough, and how long, the model's answers are. */
export const EFFORT_LEVELS = ['low', 'medium', 'high', 'xhigh', 'max'] as const;
export const EffortSchema = z.enum(EFFORT_LEVELS);
export type Effort = z.infer<typeof EffortSchema>;
