import { readFileSync } from 'node:fs';

/**
 * The words of a card or a task that carry meaning, in one normal form: lower case, English stop
 * words left out, a plural's ending taken off ("tests" and "test" are one term). Retrieval
 * (retrieval.ts) and the duplicate and contradiction rules (similarity.ts) compare these.
 */
const STOP_WORDS = new Set(
  readFileSync(new URL('./stop-words.txt', import.meta.url), 'utf8')
    .split(/\s+/)
    .filter(Boolean),
);

/** Letters and digits, with inner dots, dashes and slashes kept (`2026-12-18`, `v2.1`, `ci/cd`). */
const WORD = /[\p{L}\p{N}]+(?:[./-][\p{L}\p{N}]+)*/gu;

export function terms(text: string): string[] {
  return words(text).flatMap((word) => normalTerm(word) ?? []);
}

/** The words of a text before normalising (MiniSearch's `tokenize` contract). */
export function words(text: string): string[] {
  return Array.from(text.matchAll(WORD), (match) => match[0]);
}

export function termSet(text: string): Set<string> {
  return new Set(terms(text));
}

/** One word in normal form, or undefined for a stop word (MiniSearch's `processTerm` contract). */
export function normalTerm(word: string): string | undefined {
  const lower = word.toLowerCase();
  if (STOP_WORDS.has(lower) || lower.length < 2) return undefined;
  return singular(lower);
}

function singular(word: string): string {
  if (!/^[a-z]+$/.test(word) || word.length <= 3) return word;
  if (word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (/(?:ss|us|is)$/.test(word)) return word;
  if (/(?:ches|shes|xes|zes|sses)$/.test(word)) return word.slice(0, -2);
  if (word.endsWith('s')) return word.slice(0, -1);
  return word;
}
