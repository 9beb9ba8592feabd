import { z } from 'zod';
import { describeZodError } from '../../core/boundary/zodIssues.js';
import { contextWindowOf } from '../../core/model/modelCapabilities.js';

/**
 * When each compaction level runs. The four cheap levels fire at a fraction of the USABLE window
 * (the context window minus the room kept for the answer); autocompact fires at the usable window
 * minus a buffer, as Claude Code's does. A level never fires below its threshold, and it only
 * rewrites the view when that saves at least `minSavings` of the usable window (default 5%):
 * every rewrite breaks the prompt cache from the first changed block on, so small gains are not
 * worth one. When a level does rewrite, the cheaper levels whose thresholds were reached in the
 * same call take their smaller savings too: the cache is being rewritten anyway.
 *
 * Defaults (the model's window: 200,000 tokens for today's models; 16,000 reserved for output → 184,000 usable):
 * - snip at 0.50 (92,000): drop superseded exchanges; nearly lossless.
 * - microcompact at 0.60 (110,400): old tool results become one-line placeholders.
 * - collapse at 0.75 (138,000): finished task spans fold to one line in the view.
 * - autocompact at usable − 13,000 (171,000): hand-off summary; the only lossy level.
 * A fraction of 1 or more turns a level off (it would fire only once the window is already full).
 */
export const CompactionConfigSchema = z.strictObject({
  /** The model's context window in tokens; default: the model's own (contextWindowOf in modelCapabilities.ts). */
  contextWindow: z.number().int().positive().optional(),
  /** Room kept for the model's answer; default: the session's maxOutputTokens, at most 20,000. */
  reservedOutputTokens: z.number().int().nonnegative().optional(),
  snipAt: z.number().positive().default(0.5),
  microcompactAt: z.number().positive().default(0.6),
  collapseAt: z.number().positive().default(0.75),
  autocompact: z.boolean().default(true),
  autocompactBufferTokens: z.number().int().nonnegative().default(13_000),
  /** Smallest saving, as a fraction of the usable window, for which a level rewrites the view. */
  minSavings: z.number().min(0).max(1).default(0.05),
  /** Tool results microcompact leaves intact, counted from the newest. */
  keepRecentToolResults: z.number().int().nonnegative().default(5),
  /** The last exchange stays verbatim after an autocompaction when it is at most this big. */
  keepLastExchangeTokens: z.number().int().nonnegative().default(8_000),
  /**
   * After an autocompaction: how many recently read files come back, and their token caps (the
   * total also at most a quarter of the autocompact threshold, so a small window is not refilled).
   */
  restoreFiles: z.number().int().nonnegative().default(5),
  restoreFileTokens: z.number().int().positive().default(5_000),
  restoreTotalTokens: z.number().int().positive().default(25_000),
  /** Failed autocompactions in a row after which autocompaction is off for the session. */
  maxAutocompactFailures: z.number().int().positive().default(3),
});
export type CompactionConfigInput = z.input<typeof CompactionConfigSchema>;
export type CompactionConfig = z.output<typeof CompactionConfigSchema>;

/** A config as given in code or read from a settings file; fails with one line naming the field. */
export function parseCompactionConfig(input: unknown, source = 'compaction settings'): CompactionConfig {
  const parsed = CompactionConfigSchema.safeParse(input ?? {});
  if (!parsed.success) throw new Error(describeZodError(parsed.error, source));
  return parsed.data;
}

export type CompactionLevel = 'snip' | 'microcompact' | 'collapse' | 'autocompact';

/** The thresholds in tokens for one session. */
export interface CompactionThresholds {
  usable: number;
  snip: number;
  microcompact: number;
  collapse: number;
  autocompact: number;
  minSavings: number;
}

/** `modelId`: the session's model, whose context window applies unless the config names one. */
export function thresholdsFor(config: CompactionConfig, maxOutputTokens: number, modelId: string): CompactionThresholds {
  const reserved = config.reservedOutputTokens ?? Math.min(maxOutputTokens, 20_000);
  const usable = Math.max(0, (config.contextWindow ?? contextWindowOf(modelId)) - reserved);
  return {
    usable,
    snip: at(config.snipAt, usable),
    microcompact: at(config.microcompactAt, usable),
    collapse: at(config.collapseAt, usable),
    autocompact: config.autocompact ? usable - config.autocompactBufferTokens : Number.POSITIVE_INFINITY,
    minSavings: config.minSavings * usable,
  };
}

function at(fraction: number, usable: number): number {
  return fraction >= 1 ? Number.POSITIVE_INFINITY : fraction * usable;
}
