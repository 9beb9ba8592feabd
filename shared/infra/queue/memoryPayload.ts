import { z } from 'zod';

/**
 * What travels between the coordinator and a worker about memory (docs/memory.md): the cards
 * chosen for the job's agent, and the cards its agent asked to keep. The memory store lives with
 * the coordinator (its ORCA_HOME), so a worker on another host neither reads nor writes it: it
 * gets the chosen cards in the job and hands the new ones back in its result.
 */

/** The four kinds of knowledge worth keeping across runs (seed 000, section 5.1). */
export const MEMORY_TYPES = ['user', 'feedback', 'project', 'reference'] as const;
export type MemoryType = (typeof MEMORY_TYPES)[number];

/** A card shown to an agent at the start of its session. */
export const InjectedCardSchema = z.object({
  id: z.string().min(1),
  type: z.enum(MEMORY_TYPES),
  title: z.string().min(1),
  description: z.string().min(1),
  scope: z.string().min(1),
  /** When it was last confirmed (YYYY-MM-DD). */
  updated: z.string(),
  /** Where it is kept: `orca` (ORCA_HOME/memory) or `claude-code` (Claude Code's memory folder, read-only). */
  origin: z.enum(['orca', 'claude-code']),
  /** How well the task matched it (retrieval.ts): recorded in the transcript, never shown to the model. */
  score: z.number(),
});
export type InjectedCard = z.infer<typeof InjectedCardSchema>;

/** A card an agent asked to keep (the Remember tool's input, admitted by its rules): filed by the coordinator. */
export const RememberedCardSchema = z.object({
  type: z.enum(MEMORY_TYPES),
  title: z.string().min(1),
  description: z.string().min(1),
  /** `user` or `project:<repository id>`. */
  scope: z.string().min(1),
  confidence: z.number().min(0).max(1),
  /** `run <run> task <task>`. */
  source: z.string().min(1),
});
export type RememberedCard = z.infer<typeof RememberedCardSchema>;

/** The memory part of a job: its run's scope and clock, and the cards chosen for its prompt. */
export const JobMemorySchema = z.object({
  /** The run's project scope, `project:<repository id>`. */
  scope: z.string().min(1),
  /** The run's date (YYYY-MM-DD, the coordinator's local day): relative dates resolve against it. */
  today: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD'),
  cards: z.array(InjectedCardSchema).default([]),
});
export type JobMemory = z.infer<typeof JobMemorySchema>;
