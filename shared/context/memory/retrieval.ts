import MiniSearch from 'minisearch';
import { codeUnitOrder } from '../../core/text/codeUnitOrder.js';
import type { InjectedCard, MemoryType } from '../../infra/queue/memoryPayload.js';
import { normalTerm, words } from './terms.js';

/**
 * Which cards an agent's session starts with: precise first (seed 001, section 04): an unrelated
 * card costs tokens, distracts, and can spread an old mistake, so when in doubt none is shown.
 *
 * Only cards of the run's project scope and of scope `user` are candidates: another project's
 * cards are not even in the index, so they cannot shape the scores either. The task text is
 * scored against each card's title and description with BM25+ (MiniSearch; the title counts
 * twice). A score on its own depends on how many cards there are, so each is measured against
 * the card's own title as the query: `relevance` is the share of the title's weight the task
 * reaches (1 when the task names everything the title names). A card is shown when its
 * relevance is above `minRelevance` (more than half its title, by BM25 weight), at most `max`
 * of them, the most relevant first; ties go to the newer card, then the id. Deterministic.
 */
export interface Candidate {
  id: string;
  type: MemoryType;
  title: string;
  description: string;
  scope: string;
  updated: string;
  origin: InjectedCard['origin'];
}

export interface RetrievalOptions {
  /** The run's project scope, `project:<repository id>`. */
  scope: string;
  max?: number;
  minRelevance?: number;
}

export const DEFAULT_MAX_CARDS = 5;
export const DEFAULT_MIN_RELEVANCE = 0.5;

export function chooseCards(candidates: readonly Candidate[], task: string, options: RetrievalOptions): InjectedCard[] {
  const max = options.max ?? DEFAULT_MAX_CARDS;
  const minRelevance = options.minRelevance ?? DEFAULT_MIN_RELEVANCE;
  const visible = candidates.filter((card) => card.scope === 'user' || card.scope === options.scope);
  if (visible.length === 0 || max <= 0) return [];
  const byKey = new Map(visible.map((card, index) => [String(index), card]));
  const index = new MiniSearch<{ key: string; title: string; description: string }>({
    idField: 'key',
    fields: ['title', 'description'],
    tokenize: words,
    processTerm: (term) => normalTerm(term) ?? null,
    searchOptions: { boost: { title: 2 }, combineWith: 'OR' },
  });
  index.addAll([...byKey].map(([key, card]) => ({ key, title: card.title, description: card.description })));

  const scores = new Map<string, number>();
  for (const hit of index.search(task)) scores.set(String(hit.id), rawScore(hit));
  const chosen: InjectedCard[] = [];
  for (const [key, score] of scores) {
    const card = byKey.get(key)!;
    const own = index.search(card.title, { filter: (hit) => String(hit.id) === key })[0];
    if (!own) continue;
    const relevance = score / rawScore(own);
    if (relevance > minRelevance) chosen.push({ ...card, score: round(relevance) });
  }
  chosen.sort((a, b) => b.score - a.score || codeUnitOrder(b.updated, a.updated) || codeUnitOrder(a.id, b.id));
  return chosen.slice(0, max);
}

/** MiniSearch multiplies a hit's score by how many query terms it matched; the weight alone is wanted here. */
function rawScore(hit: { score: number; queryTerms: string[] }): number {
  return hit.score / Math.max(1, hit.queryTerms.length);
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
