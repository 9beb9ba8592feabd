import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { MEMORY_TYPES } from '../../infra/queue/memoryPayload.js';

/**
 * A memory card (seed 001, section 04): one piece of knowledge worth carrying into later
 * sessions, small enough to judge at a glance. Kept as a Markdown file with this front matter
 * (cardFile.ts); the body after it holds notes for people and is never shown to an agent.
 */

export const DATE = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD');

export const CARD_ID = /^mem_[0-9a-f]{8}$/;

/** `user` (every project of this user) or `project:<repository id>` (repoScope.ts). */
export const ScopeSchema = z
  .string()
  .refine((scope) => scope === 'user' || /^project:\S+$/.test(scope), 'must be "user" or "project:<repository id>"');

export const CardSchema = z.object({
  id: z.string().regex(CARD_ID, 'must be mem_ and 8 hex digits, e.g. mem_7f3a09c1'),
  type: z.enum(MEMORY_TYPES, { error: `must be one of ${MEMORY_TYPES.join(', ')}` }),
  title: z.string().trim().min(1, 'must not be empty').max(120, 'must be at most 120 characters'),
  description: z.string().trim().min(1, 'must not be empty').max(600, 'must be 1-3 sentences, at most 600 characters'),
  scope: ScopeSchema,
  confidence: z.number().min(0).max(1),
  created: DATE,
  updated: DATE,
  /** `run <run> task <task>`, or `user` for a card a person wrote (`orca memory add`, a review). */
  source: z.string().trim().min(1),
});
export type Card = z.infer<typeof CardSchema>;

/** What a new card is made of before the store gives it an id and dates. */
export type CardDraft = Pick<Card, 'type' | 'title' | 'description' | 'scope' | 'confidence' | 'source'>;

export function newCardId(): string {
  return `mem_${randomBytes(4).toString('hex')}`;
}

/** The local calendar day of `date`, YYYY-MM-DD: what a card's dates and a run's clock are written in. */
export function localDay(date: Date): string {
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** Noon of a YYYY-MM-DD day, local time: a reference date no time zone shift moves to another day. */
export function dayDate(day: string): Date {
  const [year, month, date] = day.split('-').map(Number) as [number, number, number];
  return new Date(year, month - 1, date, 12);
}
