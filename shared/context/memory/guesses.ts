/**
 * Words that mark a statement as a guess. A guessed root cause kept once becomes a "truth" every
 * later session inherits (seed 000, section 5.1), so `project` and `feedback` cards, which later
 * sessions act on as facts, must not carry them. `user` and `reference` cards are not checked:
 * "I think in types first" is a fact about the user.
 */
const GUESS = [
  /\bprobably\b/i,
  /\bpossibly\b/i,
  /\bperhaps\b/i,
  /\bmaybe\b/i,
  /\bmight(?:\s+be)?\b/i,
  /\bcould be\b/i,
  /\bmay be\b/i,
  /\bI (?:think|guess|believe|suspect|assume)\b/i,
  /\bseems?\b|\bseemingly\b/i,
  /\bappears? to\b/i,
  /\blikely\b/i,
  /\bnot sure\b|\bunsure\b|\bunclear whether\b/i,
];

/** The guess words in `text`, as written. */
export function guessWordsIn(text: string): string[] {
  const out: string[] = [];
  for (const pattern of GUESS) {
    const match = pattern.exec(text);
    if (match) out.push(match[0]);
  }
  return out;
}
