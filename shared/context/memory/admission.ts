import { SecretRedactor } from '../../core/runtime/secretRedaction.js';
import { MEMORY_TYPES, type MemoryType } from '../../infra/queue/memoryPayload.js';
import type { CardDraft } from './card.js';
import { derivableIn } from './derivable.js';
import { guessWordsIn } from './guesses.js';
import { relativeDatesIn } from './relativeDates.js';

/**
 * The admission rules (seed 000, section 5.1; docs/memory.md): what may become a card, checked
 * by the host, never left to a prompt. A card is admitted only when
 *   1. its type is one of the four (user, feedback, project, reference);
 *   2. its dates are absolute: a relative one is refused with the date it means on the run's day;
 *   3. it says nothing the repository tells (derivable.ts);
 *   4. a `project` or `feedback` card states no guess (guesses.ts);
 *   5. it holds no secret (the redaction rules of transcripts, shared/core/runtime/secretRedaction.ts).
 * Every rule a card breaks is named at once, so one resubmission can fix them all.
 */
export interface DraftInput {
  type: string;
  title: string;
  description: string;
  scope: string;
  confidence: number;
  source: string;
}

export type Admission = { ok: true; draft: CardDraft } | { ok: false; refusals: string[] };

export function checkDraft(input: DraftInput, context: { today: string; redactor?: SecretRedactor }): Admission {
  const refusals: string[] = [];
  const title = input.title.trim();
  const description = input.description.replace(/\s+/g, ' ').trim();
  // The rules read the text as written: a stack trace is told by its lines.
  const text = `${input.title}\n${input.description}`;

  if (!(MEMORY_TYPES as readonly string[]).includes(input.type)) {
    refusals.push(`type "${input.type}" is not a kind of memory: use one of ${MEMORY_TYPES.join(', ')}`);
  }
  if (title === '') refusals.push('the title is empty: give the subject in a few words');
  if (description === '') refusals.push('the description is empty: say the fact or the rule in 1-3 sentences');
  for (const date of relativeDatesIn(text, context.today)) {
    refusals.push(
      date.resolved
        ? `"${date.text}" is a relative date: as of ${context.today} it is ${date.resolved}; write ${date.resolved} instead and resubmit`
        : `"${date.text}" is a relative date that no calendar resolves: write the absolute date it means (YYYY-MM-DD) and resubmit`,
    );
  }
  for (const found of derivableIn(text)) refusals.push(`it names ${found.what} ("${found.seen}"): ${found.instead}`);
  if (input.type === 'project' || input.type === 'feedback') {
    for (const word of guessWordsIn(text)) {
      refusals.push(
        `"${word}" marks a guess, and a ${input.type} card is taken as fact by every later session: keep only what was confirmed (by the user, a test run, the docs), or nothing`,
      );
    }
  }
  if ((context.redactor ?? new SecretRedactor()).redactText(text) !== text) {
    refusals.push(
      'it contains a secret (an API key, a token, a password): never keep credentials in memory; say where they are kept instead',
    );
  }
  if (refusals.length > 0) return { ok: false, refusals };
  return {
    ok: true,
    draft: {
      type: input.type as MemoryType,
      title,
      description,
      scope: input.scope,
      confidence: input.confidence,
      source: input.source,
    },
  };
}

/** The refusals as one line, for a person (`orca memory add`, a review's edit). */
export function refusalLine(refusals: readonly string[]): string {
  return `not remembered: ${refusals.join('; ')}`;
}
