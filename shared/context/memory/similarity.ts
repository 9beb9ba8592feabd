import type { Card, CardDraft } from './card.js';
import { termSet } from './terms.js';

/**
 * How a new card stands to the cards already kept in its scope (seed 001, section 04:
 * duplicates merged, conflicts sent to a person). Deterministic, and careful: when it cannot
 * tell a refinement from a change of mind, a person decides.
 *
 * - Same subject: the titles share at least half their terms (SAME_SUBJECT, Jaccard over
 *   terms.ts). Of several, the one sharing most (then the newest) is compared.
 * - `update`: the new card says everything the old one said (every term of its title and
 *   description, dates and numbers included) and more, with the same polarity.
 * - `confirm`: the new card says nothing the old one does not: the old one stands, re-dated.
 * - `conflict`: anything else on the same subject: a negation one has and the other lacks ("must
 *   mock" against "must not mock"), or each says something the other does not (a freeze moved to
 *   another date, pnpm against npm).
 * - `new`: no card on the same subject.
 */
export const SAME_SUBJECT = 0.5;

export type Comparable = Pick<Card, 'id' | 'title' | 'description' | 'scope' | 'updated'>;

export type Relation<C extends Comparable = Comparable> =
  | { kind: 'new' }
  | { kind: 'update'; card: C }
  | { kind: 'confirm'; card: C }
  | { kind: 'conflict'; card: C; why: string };

const NEGATION = /\b(?:not|never|no|don't|doesn't|mustn't|shouldn't|can't|cannot|won't|avoid|without|stop|forbidden)\b/i;

export function relationTo<C extends Comparable>(
  draft: Pick<CardDraft, 'title' | 'description' | 'scope'>,
  cards: readonly C[],
): Relation<C> {
  const title = termSet(draft.title);
  let best: { card: C; similarity: number } | undefined;
  for (const card of cards) {
    if (card.scope !== draft.scope) continue;
    const similarity = jaccard(title, termSet(card.title));
    if (similarity < SAME_SUBJECT) continue;
    if (!best || similarity > best.similarity || (similarity === best.similarity && card.updated > best.card.updated)) {
      best = { card, similarity };
    }
  }
  if (!best) return { kind: 'new' };
  const { card } = best;
  const oldText = `${card.title}\n${card.description}`;
  const newText = `${draft.title}\n${draft.description}`;
  const newNegates = NEGATION.test(newText);
  if (NEGATION.test(oldText) !== newNegates) {
    const word = (NEGATION.exec(newText) ?? NEGATION.exec(oldText))?.[0];
    return { kind: 'conflict', card, why: `${newNegates ? 'the new card' : card.id} says "${word}" where the other does not` };
  }
  const oldTerms = termSet(oldText);
  const newTerms = termSet(newText);
  const dropped = [...oldTerms].filter((term) => !newTerms.has(term));
  const added = [...newTerms].filter((term) => !oldTerms.has(term));
  if (dropped.length === 0) return added.length === 0 ? { kind: 'confirm', card } : { kind: 'update', card };
  if (added.length === 0) return { kind: 'confirm', card };
  return {
    kind: 'conflict',
    card,
    why: `it says ${quoteList(added)} where ${card.id} says ${quoteList(dropped)}`,
  };
}

function jaccard(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let shared = 0;
  for (const term of a) if (b.has(term)) shared += 1;
  return shared / (a.size + b.size - shared);
}

function quoteList(items: string[]): string {
  const shown = items.slice(0, 6).map((item) => `"${item}"`);
  return items.length > 6 ? `${shown.join(', ')}, …` : shown.join(', ');
}
