import { checkDraft, type DraftInput } from './admission.js';
import { type Card, newCardId } from './card.js';
import type { MemoryStore, StoredCard, StoredPending } from './memoryStore.js';
import { relationTo } from './similarity.js';

/**
 * Files one card in the store, by the admission rules (admission.ts) and the duplicate and
 * conflict rules (similarity.ts): refused, added, an existing card updated or confirmed, or
 * queued for a person when it contradicts one. Under the store's lock, so two cards filed at
 * once are compared with each other too.
 */
export type Filed =
  | { kind: 'refused'; refusals: string[] }
  | { kind: 'added'; stored: StoredCard }
  | { kind: 'updated'; stored: StoredCard; previous: Card }
  | { kind: 'confirmed'; stored: StoredCard }
  | { kind: 'queued'; pending: StoredPending; conflictsWith: Card; why: string };

export async function fileCard(store: MemoryStore, input: DraftInput, context: { today: string }): Promise<Filed> {
  const admission = checkDraft(input, context);
  if (!admission.ok) return { kind: 'refused', refusals: admission.refusals };
  const { draft } = admission;
  return store.change(() => {
    const kept = store.load([draft.scope]).cards;
    const relation = relationTo(
      draft,
      kept.map((stored) => stored.card),
    );
    const fresh: Card = { ...draft, id: newCardId(), created: context.today, updated: context.today };
    switch (relation.kind) {
      case 'new':
        return { kind: 'added', stored: store.save(fresh) };
      case 'update': {
        const previous = relation.card;
        const notes = kept.find((stored) => stored.card.id === previous.id)?.notes ?? '';
        const card: Card = {
          ...fresh,
          id: previous.id,
          created: previous.created,
          confidence: Math.max(previous.confidence, draft.confidence),
        };
        return { kind: 'updated', stored: store.save(card, notes), previous };
      }
      case 'confirm': {
        const previous = kept.find((stored) => stored.card.id === relation.card.id)!;
        const card: Card = { ...previous.card, updated: context.today, confidence: Math.max(previous.card.confidence, draft.confidence) };
        return { kind: 'confirmed', stored: store.save(card, previous.notes) };
      }
      case 'conflict': {
        // The same proposal twice (two agents of one run) waits for one decision.
        const waiting = store
          .pending()
          .items.find(
            ({ pending }) => pending.scope === draft.scope && pending.title === draft.title && pending.description === draft.description,
          );
        const pending = waiting ?? store.queue(fresh, relation.card.id, relation.why);
        return { kind: 'queued', pending, conflictsWith: relation.card, why: relation.why };
      }
    }
  });
}

/** One line saying what became of a card, for a person or a run's log. */
export function describeFiled(filed: Filed): string {
  switch (filed.kind) {
    case 'refused':
      return `not remembered: ${filed.refusals.join('; ')}`;
    case 'added':
      return `remembered ${filed.stored.card.id} "${filed.stored.card.title}" (${filed.stored.card.scope})`;
    case 'updated':
      return `updated ${filed.stored.card.id} "${filed.stored.card.title}" (it adds to what the card said)`;
    case 'confirmed':
      return `confirmed ${filed.stored.card.id} "${filed.stored.card.title}" (it says nothing the card does not)`;
    case 'queued':
      return `queued for review: "${filed.pending.pending.title}" contradicts ${filed.conflictsWith.id} "${filed.conflictsWith.title}" (${filed.why}); run orca memory review`;
  }
}
