import { describeZodError } from '../../core/boundary/zodIssues.js';
import { parseFrontMatter } from '../instructions/frontMatter.js';
import { type Card, CardSchema } from './card.js';

/**
 * A card as a file a person can read and edit: YAML front matter with the card's fields in a
 * fixed order, then free notes (kept, never shown to an agent). Dates are written bare
 * (`created: 2026-05-06`); YAML reads a bare date as a timestamp, which is turned back into the
 * day it names.
 */
const FIELDS = ['id', 'type', 'title', 'description', 'scope', 'confidence', 'created', 'updated', 'source'] as const;

export interface CardFile {
  card: Card;
  notes: string;
}

export function formatCardFile(card: Card, notes = ''): string {
  const lines = FIELDS.map((field) => `${field}: ${yamlValue(field, card[field])}`);
  const body = notes.trim() === '' ? '' : `\n${notes.trim()}\n`;
  return `---\n${lines.join('\n')}\n---\n${body}`;
}

/** Reads a card file; anything that does not make a valid card is an error naming the file and the field. */
export function parseCardFile(text: string, file: string): CardFile {
  const { data, body } = parseFrontMatter(text, file);
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) fields[key] = value instanceof Date ? value.toISOString().slice(0, 10) : value;
  const parsed = CardSchema.safeParse(fields);
  if (!parsed.success) throw new Error(`${describeZodError(parsed.error, `the memory card ${file}`)}. Fix the file or remove it.`);
  return { card: parsed.data, notes: body.trim() };
}

function yamlValue(field: (typeof FIELDS)[number], value: string | number): string {
  if (typeof value === 'number') return String(value);
  if (field === 'id' || field === 'type' || field === 'created' || field === 'updated') return value;
  // A JSON string is a valid YAML double-quoted scalar: any title or description survives as written.
  return JSON.stringify(value);
}
