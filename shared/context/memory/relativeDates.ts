import { createRequire } from 'node:module';
import type * as Chrono from 'chrono-node';
import { dayDate, localDay } from './card.js';

/**
 * Dates a card gives relative to the day it was written ("next Thursday", "tomorrow", "in two
 * weeks", "Dec 18" with no year): read months later, they point at the wrong day (seed 000,
 * section 5.1). chrono-node finds and resolves them against the run's clock, so a refusal can
 * offer the absolute date to write instead. A date counts as absolute when it writes its year.
 */
export interface RelativeDate {
  /** The words as written. */
  text: string;
  /** What they mean as of `today` (YYYY-MM-DD, or YYYY-MM when no day is implied), if it can be told. */
  resolved?: string;
}

/**
 * Words a date is made of. chrono also reads "sun", "sat", "wed" and "now" as days, "a second"
 * as a time: a match that has none of these is not a date a card could be wrong about later.
 */
const DATE_WORDS =
  /\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|mondays?|january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec|today|tomorrow|yesterday|tonight|days?|weeks?|weekend|fortnight|months?|years?)\b|\b\d{1,4}[/-]\d{1,2}\b/i;

const WRITTEN_YEAR = /\b(?:19|20)\d{2}\b/;

/** Relative phrases chrono leaves alone, which no clock can turn into a date. */
const UNRESOLVABLE = [
  /\b(?:next|last|this|coming|previous)\s+(?:sprint|quarter|release|cycle|iteration)\b/gi,
  /\bend of (?:the )?(?:week|month|quarter|year|sprint)\b/gi,
  /(?<!\bas )\bsoon\b/gi,
  /\b(?:recently|lately|the other day)\b/gi,
];

/**
 * chrono-node, loaded when a card is first checked: its locales cost a worker about 13 MB, and
 * most workers never write a card. Required (its CommonJS build), as the check is synchronous;
 * nothing else in orca loads chrono, so there is no second copy of it.
 */
let chrono: typeof Chrono | undefined;
function chronoNode(): typeof Chrono {
  chrono ??= createRequire(import.meta.url)('chrono-node') as typeof Chrono;
  return chrono;
}

export function relativeDatesIn(text: string, today: string): RelativeDate[] {
  const found: Array<RelativeDate & { index: number; end: number }> = [];
  for (const result of chronoNode().parse(text, dayDate(today), { forwardDate: true })) {
    if (!DATE_WORDS.test(result.text) || WRITTEN_YEAR.test(result.text)) continue;
    found.push({ text: result.text, resolved: resolve(result), index: result.index, end: result.index + result.text.length });
  }
  for (const pattern of UNRESOLVABLE) {
    for (const match of text.matchAll(pattern)) {
      const index = match.index ?? 0;
      const end = index + match[0].length;
      if (found.some((date) => index < date.end && end > date.index)) continue;
      found.push({ text: match[0], index, end });
    }
  }
  return found
    .sort((a, b) => a.index - b.index)
    .map(({ text: words, resolved }) => (resolved ? { text: words, resolved } : { text: words }));
}

function resolve(result: Chrono.ParsedResult): string {
  const start = result.start;
  const day = localDay(start.date());
  return start.isCertain('day') || start.isCertain('weekday') || !start.isCertain('month') ? day : day.slice(0, 7);
}
