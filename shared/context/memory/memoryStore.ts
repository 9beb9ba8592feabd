import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import lockfile from 'proper-lockfile';
import { z } from 'zod';
import { describeZodError } from '../../core/boundary/zodIssues.js';
import { writeFileAtomic } from '../../core/files/atomicWrite.js';
import { codeUnitOrder } from '../../core/text/codeUnitOrder.js';
import { parseFrontMatter } from '../instructions/frontMatter.js';
import { type Card, CardSchema } from './card.js';
import { formatCardFile, parseCardFile } from './cardFile.js';
import { scopeFolderName } from './repoScope.js';

/**
 * The memory store: every card a file under `ORCA_HOME/memory/` (docs/memory.md),
 *
 *   user/MEMORY.md, user/<id>.md                     cards of scope `user`
 *   projects/<repo>/MEMORY.md, projects/<repo>/<id>.md   cards of scope `project:<repo id>`
 *   pending/<id>.md                                  cards that contradict one, waiting for `orca memory review`
 *
 * A card's front matter is the truth (its `scope` says where it belongs); the folders and the
 * `MEMORY.md` index beside the cards are for people, rewritten from the cards at every change.
 * Changes hold a lock file, so two processes (a run filing cards, `orca memory rm`) never
 * interleave; each file is replaced whole (atomicWrite.ts).
 */
export interface StoredCard {
  card: Card;
  notes: string;
  file: string;
}

/** A card that contradicts a kept one: what was proposed, which card it contradicts, and why. */
export const PendingSchema = CardSchema.extend({
  conflicts_with: z.string().min(1),
  reason: z.string().min(1),
});
export type Pending = z.infer<typeof PendingSchema>;

export interface StoredPending {
  pending: Pending;
  file: string;
}

export interface Loaded {
  cards: StoredCard[];
  /** Files that are not valid cards: named, never skipped in silence. */
  problems: string[];
}

const INDEX = 'MEMORY.md';

export class MemoryStore {
  readonly root: string;

  constructor(root: string) {
    this.root = path.resolve(root);
  }

  /** The store of an ORCA_HOME. */
  static inHome(orcaHome: string): MemoryStore {
    return new MemoryStore(path.join(orcaHome, 'memory'));
  }

  folderOf(scope: string): string {
    return scope === 'user' ? path.join(this.root, 'user') : path.join(this.root, 'projects', scopeFolderName(scope));
  }

  /** Every card, or those of the given scopes. */
  load(scopes?: readonly string[]): Loaded {
    const cards: StoredCard[] = [];
    const problems: string[] = [];
    for (const folder of this.cardFolders()) {
      for (const file of cardFiles(folder)) {
        try {
          const { card, notes } = parseCardFile(readFileSync(file, 'utf8'), file);
          if (!scopes || scopes.includes(card.scope)) cards.push({ card, notes, file });
        } catch (error) {
          problems.push(error instanceof Error ? error.message : String(error));
        }
      }
    }
    cards.sort(
      (a, b) =>
        codeUnitOrder(a.card.scope, b.card.scope) || codeUnitOrder(b.card.updated, a.card.updated) || codeUnitOrder(a.card.id, b.card.id),
    );
    return { cards, problems };
  }

  find(id: string): StoredCard | undefined {
    return this.load().cards.find((stored) => stored.card.id === id);
  }

  /** Writes a card (new or changed) and the indexes of the folders it touched. Call inside `change`. */
  save(card: Card, notes = ''): StoredCard {
    const parsed = CardSchema.parse(card);
    const previous = this.find(parsed.id);
    const file = path.join(this.folderOf(parsed.scope), `${parsed.id}.md`);
    writeFileAtomic(file, Buffer.from(formatCardFile(parsed, notes), 'utf8'), { createParents: true, label: file });
    if (previous && previous.file !== file) {
      rmSync(previous.file, { force: true });
      this.writeIndex(path.dirname(previous.file));
    }
    this.writeIndex(path.dirname(file));
    return { card: parsed, notes, file };
  }

  /** Removes a card; undefined when there is none with that id. Call inside `change`. */
  remove(id: string): StoredCard | undefined {
    const stored = this.find(id);
    if (!stored) return undefined;
    rmSync(stored.file);
    this.writeIndex(path.dirname(stored.file));
    return stored;
  }

  pending(): { items: StoredPending[]; problems: string[] } {
    const items: StoredPending[] = [];
    const problems: string[] = [];
    for (const file of cardFiles(path.join(this.root, 'pending'))) {
      try {
        const { data } = parseFrontMatter(readFileSync(file, 'utf8'), file);
        const fields = Object.fromEntries(
          Object.entries(data).map(([key, value]) => [key, value instanceof Date ? value.toISOString().slice(0, 10) : value]),
        );
        const parsed = PendingSchema.safeParse(fields);
        if (!parsed.success) throw new Error(`${describeZodError(parsed.error, `the pending card ${file}`)}. Fix the file or remove it.`);
        items.push({ pending: parsed.data, file });
      } catch (error) {
        problems.push(error instanceof Error ? error.message : String(error));
      }
    }
    items.sort((a, b) => codeUnitOrder(a.pending.created, b.pending.created) || codeUnitOrder(a.pending.id, b.pending.id));
    return { items, problems };
  }

  /** Queues a card that contradicts `conflictsWith` for a person to decide. Call inside `change`. */
  queue(card: Card, conflictsWith: string, reason: string): StoredPending {
    const pending = PendingSchema.parse({ ...card, conflicts_with: conflictsWith, reason });
    const file = path.join(this.root, 'pending', `${pending.id}.md`);
    const extra = `conflicts_with: ${pending.conflicts_with}\nreason: ${JSON.stringify(pending.reason)}\n---\n`;
    const text = formatCardFile(card).replace(/---\n$/, extra);
    writeFileAtomic(file, Buffer.from(text, 'utf8'), { createParents: true, label: file });
    return { pending, file };
  }

  dropPending(id: string): void {
    rmSync(path.join(this.root, 'pending', `${id}.md`), { force: true });
  }

  /** Runs `fn` holding the store's lock: every change goes through here. */
  async change<T>(fn: () => T | Promise<T>): Promise<T> {
    mkdirSync(this.root, { recursive: true });
    const release = await lockfile.lock(this.root, {
      lockfilePath: path.join(this.root, '.lock'),
      stale: 30_000,
      retries: { retries: 200, factor: 1, minTimeout: 25, maxTimeout: 25 },
    });
    try {
      return await fn();
    } finally {
      await release();
    }
  }

  private cardFolders(): string[] {
    const folders = [path.join(this.root, 'user')];
    const projects = path.join(this.root, 'projects');
    if (existsSync(projects)) {
      for (const entry of readdirSync(projects, { withFileTypes: true })) {
        if (entry.isDirectory()) folders.push(path.join(projects, entry.name));
      }
    }
    return folders;
  }

  /** The folder's MEMORY.md: one line per card, newest first; removed with the folder's last card. */
  private writeIndex(folder: string): void {
    const cards = cardFiles(folder).flatMap((file) => {
      try {
        return [parseCardFile(readFileSync(file, 'utf8'), file).card];
      } catch {
        // A broken card is reported by load(); the index lists what can be read.
        return [];
      }
    });
    const index = path.join(folder, INDEX);
    if (cards.length === 0) {
      rmSync(index, { force: true });
      return;
    }
    cards.sort((a, b) => codeUnitOrder(b.updated, a.updated) || codeUnitOrder(a.id, b.id));
    const lines = cards.map((card) => `- [${card.title}](${card.id}.md) — ${card.description} (${card.type}, ${card.updated})`);
    const text = `# Memory: ${cards[0]!.scope}\n\nWritten by orca from the cards beside it; edit the cards, not this file.\n\n${lines.join('\n')}\n`;
    writeFileAtomic(index, Buffer.from(text, 'utf8'), { label: index });
  }
}

/** The card files of a folder: `*.md` but the index and dot files (a write's temporary file). */
function cardFiles(folder: string): string[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder)
    .filter((name) => name.endsWith('.md') && name !== INDEX && !name.startsWith('.'))
    .sort()
    .map((name) => path.join(folder, name));
}
