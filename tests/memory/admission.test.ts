import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkDraft, type DraftInput } from '../../shared/context/memory/admission.js';
import { parseCardFile } from '../../shared/context/memory/cardFile.js';
import { fileCard } from '../../shared/context/memory/fileCard.js';
import { MemoryStore } from '../../shared/context/memory/memoryStore.js';
import { tempDir } from '../support/tempDir.js';

const SCOPE = 'project:github.com/acme/web';
// A Wednesday: "next Thursday" is the Thursday of the week after.
const TODAY = '2026-05-06';

function draft(fields: Partial<DraftInput>): DraftInput {
  return {
    type: 'project',
    title: 'A card',
    description: 'Something worth keeping.',
    scope: SCOPE,
    confidence: 0.8,
    source: 'run r1 task w1',
    ...fields,
  };
}

function refusals(fields: Partial<DraftInput>, today = TODAY): string[] {
  const result = checkDraft(draft(fields), { today });
  if (result.ok) throw new Error(`admitted: ${JSON.stringify(fields)}`);
  return result.refusals;
}

describe('memory admission rules', () => {
  it("refuses a relative date, offering the absolute date it means on the run's day", () => {
    expect(refusals({ title: 'Release freeze', description: 'The release freeze starts next Thursday.' })).toEqual([
      '"next Thursday" is a relative date: as of 2026-05-06 it is 2026-05-14; write 2026-05-14 instead and resubmit',
    ]);
    expect(refusals({ description: 'The API changes tomorrow.' })[0]).toContain('as of 2026-05-06 it is 2026-05-07');
    expect(refusals({ description: 'The old endpoint goes away in two weeks.' })[0]).toContain('it is 2026-05-20');
    // A day without its year is relative too; a later clock resolves it to a later date.
    expect(refusals({ description: 'Freeze on Dec 18.' }, '2026-12-20')[0]).toContain('it is 2027-12-18');
    expect(refusals({ description: 'We moved to pnpm last month.' })[0]).toContain('it is 2026-04;');
    expect(refusals({ description: 'Ship it by the end of the sprint, next sprint at the latest.' })).toEqual([
      '"end of the sprint" is a relative date that no calendar resolves: write the absolute date it means (YYYY-MM-DD) and resubmit',
      '"next sprint" is a relative date that no calendar resolves: write the absolute date it means (YYYY-MM-DD) and resubmit',
    ]);
  });

  it('takes dates that write their year, and times and words that only look like days', () => {
    for (const description of [
      'No merges to main from 2026-12-18 until 2027-01-05.',
      'The legacy flow stays until 18 December 2026.',
      'Nightly builds run at 2am; run it a second time if the sat solver step times out.',
      'Run the linter as soon as a file changes.',
    ]) {
      expect(checkDraft(draft({ description }), { today: TODAY }).ok, description).toBe(true);
    }
  });

  it('refuses what the repository tells: a path:line, a commit sha, test counts, a stack trace, code', () => {
    expect(refusals({ description: 'The bug is in src/cart.ts:42 where totals round.' })).toEqual([
      'it names a file path with a line number ("src/cart.ts:42"): the code says where things are: name the concept, not the place',
    ]);
    expect(refusals({ description: 'The regression came in with 3f9c2ab1d.' })).toEqual([
      'it names a commit sha ("3f9c2ab1d"): git log tells which commit did what',
    ]);
    expect(refusals({ description: 'The suite is at 412 passed, 3 failed.' })[0]).toBe(
      'it names test counts ("412 passed"): a test run tells how many pass today',
    );
    expect(refusals({ description: 'It fails with\n    at Cart.total (src/cart.js:12:5)' }).join('\n')).toContain('a stack trace');
    expect(refusals({ description: 'Use function total(items) { return items.length; } for totals.' })[0]).toContain(
      'code (a function body or a code block)',
    );
    // A host and port, a version and a plain number are not places in the code.
    expect(
      checkDraft(draft({ type: 'reference', description: 'Grafana is at grafana.acme.io:3000, version 10.2.' }), { today: TODAY }).ok,
    ).toBe(true);
  });

  it('refuses a guess in a project or feedback card, and lets a user card say what the user thinks', () => {
    expect(refusals({ description: 'The flaky test is probably caused by the clock.' })).toEqual([
      '"probably" marks a guess, and a project card is taken as fact by every later session: keep only what was confirmed (by the user, a test run, the docs), or nothing',
    ]);
    for (const description of ['It might be the cache.', 'I think the queue drops jobs.', 'The timeout seems too short.']) {
      expect(refusals({ type: 'feedback', description }).join('\n'), description).toContain('marks a guess');
    }
    expect(
      checkDraft(draft({ type: 'user', description: 'I think in types first; show the types before the code.' }), { today: TODAY }).ok,
    ).toBe(true);
  });

  it('refuses a secret, by the redaction rules of transcripts', () => {
    expect(refusals({ type: 'reference', description: 'The staging key is sk-ant-api03-abcdefghijklmnop.' })).toEqual([
      'it contains a secret (an API key, a token, a password): never keep credentials in memory; say where they are kept instead',
    ]);
    expect(refusals({ type: 'reference', description: 'Deploys use password: hunter2hunter2.' })[0]).toContain('contains a secret');
  });

  it('refuses a fifth type, naming the four', () => {
    expect(refusals({ type: 'fact' })).toEqual(['type "fact" is not a kind of memory: use one of user, feedback, project, reference']);
  });

  it('names every rule a card breaks at once', () => {
    expect(refusals({ description: 'Probably fixed by 3f9c2ab1d tomorrow.' })).toHaveLength(3);
  });

  it('admits a card of each of the four types, and files them in the store by scope', async () => {
    const store = new MemoryStore(tempDir('orca-memory-'));
    const cards: DraftInput[] = [
      draft({ type: 'user', scope: 'user', title: 'The user is a backend engineer', description: 'Strong in Go and SQL, new to React.' }),
      draft({ type: 'feedback', title: 'Tests must not mock the database', description: 'A mocked database once hid a broken migration.' }),
      draft({
        type: 'project',
        title: 'Release freeze from 2026-12-18',
        description: 'No merges to main from 2026-12-18 until 2027-01-05.',
      }),
      draft({ type: 'reference', title: 'Bugs are tracked in Linear', description: 'Pipeline bugs go to the Linear project WEB.' }),
    ];
    for (const card of cards) {
      const filed = await fileCard(store, card, { today: TODAY });
      expect(filed.kind, card.title).toBe('added');
    }
    const { cards: kept, problems } = store.load();
    expect(problems).toEqual([]);
    expect(kept.map((stored) => stored.card.type).sort()).toEqual(['feedback', 'project', 'reference', 'user']);
    const user = kept.find((stored) => stored.card.type === 'user')!;
    expect(user.file).toBe(path.join(store.root, 'user', `${user.card.id}.md`));
    const project = kept.find((stored) => stored.card.type === 'project')!;
    expect(project.file).toBe(path.join(store.root, 'projects', 'github-com-acme-web', `${project.card.id}.md`));
    // The file is readable by a person and reads back as the same card.
    const text = readFileSync(project.file, 'utf8');
    expect(text).toContain('title: "Release freeze from 2026-12-18"');
    expect(text).toContain(`created: ${TODAY}`);
    expect(parseCardFile(text, project.file).card).toEqual(project.card);
    // One index per scope, listing its cards.
    const index = readFileSync(path.join(store.root, 'projects', 'github-com-acme-web', 'MEMORY.md'), 'utf8');
    expect(index).toContain(`- [Release freeze from 2026-12-18](${project.card.id}.md)`);
    expect(index).not.toContain('backend engineer');
    expect(existsSync(path.join(store.root, 'user', 'MEMORY.md'))).toBe(true);
  });

  it('lets a near-duplicate update the card it repeats, and a restatement confirm it', async () => {
    const store = new MemoryStore(tempDir('orca-memory-'));
    const first = await fileCard(store, draft({ type: 'feedback', title: 'Use pnpm', description: 'This project installs with pnpm.' }), {
      today: '2026-05-01',
    });
    if (first.kind !== 'added') throw new Error(first.kind);
    const more = await fileCard(
      store,
      draft({
        type: 'feedback',
        title: 'Use pnpm always',
        description: 'This project installs with pnpm; the lock file is pnpm-lock.yaml.',
      }),
      { today: TODAY },
    );
    expect(more.kind).toBe('updated');
    const same = await fileCard(store, draft({ type: 'feedback', title: 'Use pnpm', description: 'Installs with pnpm.' }), {
      today: '2026-05-09',
    });
    expect(same.kind).toBe('confirmed');
    const kept = store.load().cards;
    expect(kept).toHaveLength(1);
    expect(kept[0]!.card).toMatchObject({
      id: first.stored.card.id,
      title: 'Use pnpm always',
      description: 'This project installs with pnpm; the lock file is pnpm-lock.yaml.',
      created: '2026-05-01',
      updated: '2026-05-09',
    });
    // Another scope's card of the same title is another card.
    const elsewhere = await fileCard(
      store,
      draft({ type: 'feedback', scope: 'project:github.com/acme/billing', title: 'Use pnpm', description: 'Billing installs with pnpm.' }),
      {
        today: TODAY,
      },
    );
    expect(elsewhere.kind).toBe('added');
  });

  it('queues a card that contradicts a kept one for the user, and writes nothing', async () => {
    const store = new MemoryStore(tempDir('orca-memory-'));
    const freeze = await fileCard(
      store,
      draft({ title: 'Release freeze from 2026-12-18', description: 'No merges to main from 2026-12-18.' }),
      {
        today: TODAY,
      },
    );
    if (freeze.kind !== 'added') throw new Error(freeze.kind);
    const moved = await fileCard(
      store,
      draft({ title: 'Release freeze from 2027-01-10', description: 'No merges to main from 2027-01-10.' }),
      {
        today: TODAY,
      },
    );
    expect(moved.kind).toBe('queued');
    if (moved.kind !== 'queued') return;
    expect(moved.conflictsWith.id).toBe(freeze.stored.card.id);
    expect(moved.why).toContain('"2027-01-10"');
    const mocks = await fileCard(
      store,
      draft({ type: 'feedback', title: 'Mock the network in tests', description: 'Unit tests mock the network.' }),
      {
        today: TODAY,
      },
    );
    if (mocks.kind !== 'added') throw new Error(mocks.kind);
    const negated = await fileCard(
      store,
      draft({ type: 'feedback', title: 'Mock the network in tests', description: 'Unit tests must not mock the network.' }),
      { today: TODAY },
    );
    expect(negated.kind).toBe('queued');
    if (negated.kind === 'queued') expect(negated.why).toBe('the new card says "not" where the other does not');
    // The kept cards are untouched; the proposals wait in pending/, a file each.
    const kept = store.load().cards;
    expect(kept.map((stored) => stored.card).sort((a, b) => a.id.localeCompare(b.id))).toEqual(
      [freeze.stored.card, mocks.stored.card].sort((a, b) => a.id.localeCompare(b.id)),
    );
    const pending = store.pending().items;
    expect(pending.map((item) => item.pending.conflicts_with).sort()).toEqual([freeze.stored.card.id, mocks.stored.card.id].sort());
    expect(pending.every((item) => item.file.startsWith(path.join(store.root, 'pending')))).toBe(true);
    // The same proposal again waits for the same decision.
    await fileCard(store, draft({ title: 'Release freeze from 2027-01-10', description: 'No merges to main from 2027-01-10.' }), {
      today: TODAY,
    });
    expect(store.pending().items).toHaveLength(2);
  });

  it('names a card file that is broken instead of skipping it in silence', async () => {
    const store = new MemoryStore(tempDir('orca-memory-'));
    const filed = await fileCard(store, draft({}), { today: TODAY });
    if (filed.kind !== 'added') throw new Error(filed.kind);
    const { writeFileSync } = await import('node:fs');
    writeFileSync(filed.stored.file, '---\nid: mem_00000000\ntype: fact\n---\n');
    const loaded = store.load();
    expect(loaded.cards).toEqual([]);
    expect(loaded.problems).toEqual([expect.stringContaining(`the memory card ${filed.stored.file} is invalid: type: must be one of`)]);
  });
});
