import { describe, expect, it } from 'vitest';
import { type Candidate, chooseCards } from '../../shared/context/memory/retrieval.js';

const HERE = 'project:github.com/acme/web';
const OTHER = 'project:github.com/acme/billing';

let next = 0;
function card(scope: string, type: Candidate['type'], title: string, description: string): Candidate {
  next += 1;
  return { id: `mem_${String(next).padStart(8, '0')}`, type, title, description, scope, updated: '2026-05-01', origin: 'orca' };
}

/** 40 cards of mixed scopes and kinds, the kind a team collects: one of them is about the release freeze. */
const CARDS: Candidate[] = [
  card(
    HERE,
    'project',
    'Release freeze from 2026-12-18',
    'No merges to main from 2026-12-18 until 2027-01-05; only hotfixes the release manager approved.',
  ),
  card(
    HERE,
    'feedback',
    'Tests must not mock the database',
    'Integration tests run against the Postgres from compose.yaml; a mocked database once hid a broken migration.',
  ),
  card(HERE, 'feedback', 'Use pnpm, never npm', 'This project installs with pnpm; npm rewrites the lock file.'),
  card(HERE, 'project', 'Payments refactor is for compliance', 'The payments module is being split for PCI compliance, not for speed.'),
  card(HERE, 'reference', 'Bugs are tracked in Linear project WEB', 'Pipeline bugs are filed in the Linear project WEB.'),
  card(
    HERE,
    'reference',
    'Grafana dashboard for the API latency',
    'The API latency dashboard is grafana.acme.io/d/api-latency; check it after a deploy.',
  ),
  card(HERE, 'feedback', 'Ask before running git push', 'Never push to a remote without the user saying so.'),
  card(
    HERE,
    'project',
    'The mobile app pins API version 3',
    'The iOS and Android apps call API version 3; removing its fields breaks them.',
  ),
  card(HERE, 'feedback', 'Keep pull requests small', 'Split a change over 400 lines into separate pull requests.'),
  card(HERE, 'project', 'Staging is reset every Monday', 'The staging database is restored from a snapshot each Monday at 06:00 UTC.'),
  card(HERE, 'reference', 'Design tokens live in Figma', 'Colours and spacing come from the Figma library "Acme DS".'),
  card(HERE, 'feedback', 'Prefer small pure functions', 'The user prefers small pure functions over classes with state.'),
  card(
    HERE,
    'project',
    'Legacy checkout stays until Q3 2027',
    'The old checkout flow must keep working until 2027-09-30 for enterprise customers.',
  ),
  card(HERE, 'feedback', 'Commit messages say why', 'A commit message explains why the change was made, not only what changed.'),
  card(HERE, 'reference', 'On-call runbook in Notion', 'The on-call runbook is the Notion page "Web on-call".'),
  card(HERE, 'project', 'Feature flags through LaunchDarkly', 'New user-facing features ship behind a LaunchDarkly flag.'),
  card(HERE, 'feedback', 'No new dependencies without asking', 'Adding a package needs the user to agree first.'),
  card(HERE, 'project', 'Translations are done by an agency', 'Strings for French and German come back from the agency in a week.'),
  card(HERE, 'reference', 'Error tracking in Sentry', 'Front-end errors go to the Sentry project acme-web.'),
  card(HERE, 'feedback', 'Write dates in ISO format', 'User-facing dates in logs and docs are written YYYY-MM-DD.'),
  card(OTHER, 'project', 'Release freeze from 2026-11-01', 'Billing freezes its releases from 2026-11-01 for the audit.'),
  card(OTHER, 'feedback', 'Use yarn in billing', 'Billing installs with yarn.'),
  card(OTHER, 'project', 'Invoices are immutable', 'An issued invoice is never edited; a credit note corrects it.'),
  card(OTHER, 'reference', 'Tax rules in the finance wiki', 'Tax rules per country are kept in the finance wiki.'),
  card(OTHER, 'feedback', 'Round money half to even', 'Money is rounded half to even in billing.'),
  card(OTHER, 'project', 'Stripe webhooks are replayed nightly', 'Missed Stripe webhooks are replayed every night.'),
  card(OTHER, 'reference', 'Billing dashboards in Metabase', 'Revenue dashboards are in Metabase.'),
  card(OTHER, 'feedback', 'Billing tests use fixtures', 'Billing tests load fixtures from the fixtures folder.'),
  card(OTHER, 'project', 'Currency list comes from the ECB', 'Exchange rates are fetched from the ECB each morning.'),
  card(OTHER, 'reference', 'Billing on-call rota', 'The billing on-call rota is in PagerDuty.'),
  card('user', 'user', 'The user is a backend engineer', 'Strong in Go and SQL, new to React.'),
  card('user', 'user', 'Explain front-end changes in detail', 'The user wants React changes explained step by step.'),
  card('user', 'feedback', 'Answer briefly', 'The user wants short answers without a closing summary.'),
  card('user', 'user', 'Works in Berlin time', 'The user is in Europe/Berlin; meetings are in the morning.'),
  card('user', 'feedback', 'Show the command before running it', 'Print the exact shell command before a long-running one.'),
  card('user', 'user', 'Uses Neovim', 'The user edits in Neovim with LSP.'),
  card('user', 'feedback', 'No emojis in code comments', 'Comments stay plain text.'),
  card('user', 'user', 'Reviews on Fridays', 'The user reviews pull requests on Friday afternoons.'),
  card('user', 'feedback', 'Type hints everywhere', 'Every Python function gets type hints.'),
  card('user', 'reference', 'Personal notes in Obsidian', 'The user keeps personal notes in Obsidian.'),
];

const ids = (cards: Array<{ id: string }>) => cards.map((c) => c.id);
const FREEZE = CARDS[0]!;
const OTHER_FREEZE = CARDS.find((c) => c.scope === OTHER && c.title.startsWith('Release freeze'))!;

describe('memory retrieval: precise first', () => {
  it('has 40 cards of three scopes to choose from', () => {
    expect(CARDS).toHaveLength(40);
    expect(new Set(CARDS.map((c) => c.scope))).toEqual(new Set([HERE, OTHER, 'user']));
  });

  it('gives a task about the release freeze the freeze card and nothing unrelated', () => {
    for (const task of [
      'Land the checkout fix before the release freeze starts',
      'Which release freeze applies to the web app?',
      'Plan the hotfix work around the release freeze.',
    ]) {
      const chosen = chooseCards(CARDS, task, { scope: HERE });
      expect(ids(chosen), task).toEqual([FREEZE.id]);
      expect(chosen[0]!.score).toBeGreaterThan(0.5);
    }
  });

  it('injects none for a task that no card covers', () => {
    for (const task of [
      'Add a dark mode toggle to the settings page',
      'Rename the helper that formats phone numbers',
      'Fix the typo in README',
    ]) {
      expect(chooseCards(CARDS, task, { scope: HERE }), task).toEqual([]);
    }
  });

  it("never offers another project's cards, even on the same subject", () => {
    const forHere = chooseCards(CARDS, 'Move the release freeze to the audit date', { scope: HERE });
    expect(ids(forHere)).not.toContain(OTHER_FREEZE.id);
    const forOther = chooseCards(CARDS, 'Move the release freeze to the audit date', { scope: OTHER });
    expect(ids(forOther)).toEqual([OTHER_FREEZE.id]);
    expect(ids(forOther)).not.toContain(FREEZE.id);
    // Whatever the task, no card of a third scope is ever a candidate.
    for (const task of CARDS.map((c) => c.title)) {
      for (const chosen of chooseCards(CARDS, task, { scope: 'project:elsewhere' })) expect(chosen.scope).toBe('user');
    }
  });

  it('offers user cards to every project, and several cards when the task touches several', () => {
    const chosen = chooseCards(CARDS, 'Write the database tests (install with pnpm, not npm), and do not mock the database', {
      scope: HERE,
    });
    expect(ids(chosen).sort()).toEqual([CARDS[1]!.id, CARDS[2]!.id].sort());
    const user = chooseCards(CARDS, 'Explain the front-end changes you made', { scope: OTHER });
    expect(ids(user)).toEqual([CARDS.find((c) => c.title === 'Explain front-end changes in detail')!.id]);
  });

  it('keeps to at most N cards, the most relevant first, and is deterministic', () => {
    const task = CARDS.filter((c) => c.scope === HERE)
      .map((c) => c.title)
      .join('. ');
    const all = chooseCards(CARDS, task, { scope: HERE, max: 40 });
    expect(all.length).toBeGreaterThan(5);
    const five = chooseCards(CARDS, task, { scope: HERE });
    expect(five).toHaveLength(5);
    expect(five).toEqual(all.slice(0, 5));
    for (let i = 1; i < all.length; i += 1) expect(all[i - 1]!.score).toBeGreaterThanOrEqual(all[i]!.score);
    expect(chooseCards([...CARDS].reverse(), task, { scope: HERE })).toEqual(five);
  });

  it('chooses from a store of one card as it does from forty', () => {
    expect(ids(chooseCards([FREEZE], 'Land the fix before the release freeze', { scope: HERE }))).toEqual([FREEZE.id]);
    expect(chooseCards([FREEZE], 'Add a dark mode toggle', { scope: HERE })).toEqual([]);
  });
});
