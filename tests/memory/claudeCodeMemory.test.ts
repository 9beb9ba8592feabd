import { readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunMemory } from '../../coordinator/memory/runMemory.js';
import { claudeCodeMemoryDir, readClaudeCodeMemory } from '../../shared/context/memory/claudeCodeMemory.js';
import { fileCard } from '../../shared/context/memory/fileCard.js';
import { MemoryStore } from '../../shared/context/memory/memoryStore.js';
import { repoIdentity } from '../../shared/context/memory/repoScope.js';
import { git, makeRepo, writeFiles } from '../support/gitRepo.js';
import { tempDir } from '../support/tempDir.js';

/** Claude Code's memory folder for a repository, as Claude Code lays it out. */
function claudeCodeMemory(claudeDir: string, repo: string, files: Record<string, string>): string {
  const project = realpathSync(repo).replace(/[^A-Za-z0-9]/g, '-');
  const dir = path.join(claudeDir, 'projects', project, 'memory');
  writeFiles(dir, files);
  return dir;
}

const FILES = {
  'MEMORY.md': [
    '# Memory',
    '- [Release freeze](project_release_freeze.md) — no merges from 2026-12-18',
    '- The staging database is reset every Monday at 06:00 UTC',
    '',
  ].join('\n'),
  'project_release_freeze.md': [
    '---',
    'name: Release freeze',
    'description: No merges to main from 2026-12-18 until 2027-01-05',
    'type: project',
    '---',
    'Only hotfixes the release manager approved go in during the freeze.',
    '',
  ].join('\n'),
  'feedback_testing.md': [
    '---',
    'name: Tests hit a real database',
    'description: Integration tests must not mock the database',
    'type: feedback',
    '---',
    'Why: a mock hid a broken migration.',
    '',
  ].join('\n'),
};

describe("Claude Code's memory of the repository", () => {
  it('finds the folder by the main worktree path, from any worktree, and reads its cards read-only', async () => {
    const repo = makeRepo();
    const claudeDir = tempDir('orca-claude-');
    const dir = claudeCodeMemory(claudeDir, repo, FILES);
    const worktree = path.join(tempDir('orca-wt-'), 'wt');
    git(repo, 'worktree', 'add', '-q', '--detach', worktree);
    expect(claudeCodeMemoryDir(claudeDir, (await repoIdentity(worktree)).mainRoot)).toBe(dir);
    expect(claudeCodeMemoryDir(claudeDir, tempDir('orca-other-'))).toBeUndefined();

    const before = Object.keys(FILES).map((name) => statSync(path.join(dir, name)).mtimeMs);
    const { cards, problems } = readClaudeCodeMemory(dir, 'project:x');
    expect(problems).toEqual([]);
    expect(cards.map((card) => [card.id, card.type, card.title])).toEqual([
      ['claude-code:feedback_testing.md', 'feedback', 'Tests hit a real database'],
      ['claude-code:project_release_freeze.md', 'project', 'Release freeze'],
      ['claude-code:MEMORY.md:3', 'project', 'The staging database is reset every Monday at 06:00 UTC'],
    ]);
    expect(cards[1]!.description).toBe(
      'No merges to main from 2026-12-18 until 2027-01-05 — Only hotfixes the release manager approved go in during the freeze.',
    );
    expect(cards.every((card) => card.origin === 'claude-code' && card.scope === 'project:x')).toBe(true);
    // Nothing was written there.
    expect(Object.keys(FILES).map((name) => statSync(path.join(dir, name)).mtimeMs)).toEqual(before);
    expect(readFileSync(path.join(dir, 'MEMORY.md'), 'utf8')).toBe(FILES['MEMORY.md']);
  });

  it("offers its cards to a run's agents as orca's own are offered, by relevance to the prompt", async () => {
    const repo = makeRepo();
    const claudeDir = tempDir('orca-claude-');
    const orcaHome = tempDir('orca-home-');
    claudeCodeMemory(claudeDir, repo, FILES);
    const scope = (await repoIdentity(repo)).scope;
    const store = MemoryStore.inHome(orcaHome);
    const pnpm = await fileCard(
      store,
      { type: 'feedback', title: 'Use pnpm', description: 'Install with pnpm.', scope, confidence: 1, source: 'user' },
      { today: '2026-05-01' },
    );
    if (pnpm.kind !== 'added') throw new Error(pnpm.kind);
    const memory = await RunMemory.open({ orcaHome, repo, startedAt: new Date(2026, 4, 6, 9).getTime(), claudeDir });
    expect(memory.claudeCodeDir).toBeDefined();
    expect(memory.today).toBe('2026-05-06');

    const freeze = memory.forPrompt('Get the checkout fix in before the release freeze');
    expect(freeze.scope).toBe(scope);
    expect(freeze.cards.map((card) => [card.id, card.origin])).toEqual([['claude-code:project_release_freeze.md', 'claude-code']]);
    const mixed = memory.forPrompt('Install the deps with pnpm and write tests that hit a real database');
    expect(mixed.cards.map((card) => card.id).sort()).toEqual(['claude-code:feedback_testing.md', pnpm.stored.card.id].sort());
    expect(memory.forPrompt('Add a dark mode toggle').cards).toEqual([]);
  });
});
