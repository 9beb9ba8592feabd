import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { SecretRedactor } from '../../core/runtime/secretRedaction.js';
import { MEMORY_TYPES, type MemoryType } from '../../infra/queue/memoryPayload.js';
import { parseFrontMatter } from '../instructions/frontMatter.js';
import { localDay } from './card.js';
import type { Candidate } from './retrieval.js';

/**
 * Claude Code's own memory of the repository, read (never written) and offered like orca's cards
 * (docs/memory.md): `<claude dir>/projects/<project>/memory/`, where `<project>` is the absolute
 * path of the repository's main worktree with every character but letters and digits turned
 * into `-` (`/home/me/shop` → `-home-me-shop`), so every worktree of a repository shares it.
 * Claude Code shortens a name over 200 characters and adds a hash; such a folder is found by its
 * first 200 characters when exactly one has them.
 *
 * - Each topic file (`*.md` but MEMORY.md) is one card: `name` (or its first heading, or its
 *   file name) is the title; `description` and then the body make the description; `type` is
 *   kept when it is one of the four, else `project`.
 * - MEMORY.md is Claude Code's index: a line that links a topic file is that file's; any other
 *   list item or paragraph line is a card of its own.
 * Secrets in them are redacted before anything is offered. The cards' scope is the run's.
 */
const MAX_NAME = 200;
const MAX_DESCRIPTION = 600;

export function claudeCodeMemoryDir(claudeDir: string, mainRoot: string): string | undefined {
  const projects = path.join(claudeDir, 'projects');
  const name = path.resolve(mainRoot).replace(/[^A-Za-z0-9]/g, '-');
  if (name.length <= MAX_NAME) {
    const dir = path.join(projects, name, 'memory');
    return existsSync(dir) ? dir : undefined;
  }
  if (!existsSync(projects)) return undefined;
  const prefix = name.slice(0, MAX_NAME);
  const matches = readdirSync(projects).filter((entry) => entry.startsWith(prefix) && existsSync(path.join(projects, entry, 'memory')));
  return matches.length === 1 ? path.join(projects, matches[0]!, 'memory') : undefined;
}

export interface ClaudeCodeMemory {
  dir: string;
  cards: Candidate[];
  problems: string[];
}

export function readClaudeCodeMemory(dir: string, scope: string, redactor = new SecretRedactor()): ClaudeCodeMemory {
  const cards: Candidate[] = [];
  const problems: string[] = [];
  const topics = readdirSync(dir)
    .filter((name) => name.endsWith('.md') && name !== 'MEMORY.md' && !name.startsWith('.'))
    .sort();
  for (const name of topics) {
    const file = path.join(dir, name);
    try {
      const { data, body } = parseFrontMatter(readFileSync(file, 'utf8'), file);
      const heading = /^#+\s+(.+)$/m.exec(body)?.[1];
      const title = text(data.name) ?? heading ?? name.replace(/\.md$/, '').replace(/[-_]+/g, ' ');
      const content = body.replace(/^#+\s+.+$/m, '');
      const description = [text(data.description), oneLine(content)].filter(Boolean).join(' — ');
      if (description === '') continue;
      cards.push(card(`claude-code:${name}`, typeOf(data.type), title, description, scope, file, redactor));
    } catch (error) {
      problems.push(`Claude Code memory: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const index = path.join(dir, 'MEMORY.md');
  if (existsSync(index)) {
    const lines = readFileSync(index, 'utf8').split(/\r?\n/);
    lines.forEach((raw, line) => {
      const item = raw.replace(/^\s*(?:[-*+]|\d+\.)\s+/, '').trim();
      if (item === '' || item.startsWith('#')) return;
      // A pointer to a topic file is that file's card.
      const link = /\[[^\]]*\]\(([^)]+\.md)\)/.exec(item);
      if (link && topics.includes(path.basename(link[1]!))) return;
      const plain = item.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[*_`]/g, '');
      const title = plain.length > 80 ? `${plain.slice(0, 79)}…` : plain;
      cards.push(card(`claude-code:MEMORY.md:${line + 1}`, 'project', title, plain, scope, index, redactor));
    });
  }
  return { dir, cards, problems };
}

function card(
  id: string,
  type: MemoryType,
  title: string,
  description: string,
  scope: string,
  file: string,
  redactor: SecretRedactor,
): Candidate {
  const clipped = description.length > MAX_DESCRIPTION ? `${description.slice(0, MAX_DESCRIPTION - 1)}…` : description;
  return {
    id,
    type,
    title: redactor.redactText(title),
    description: redactor.redactText(clipped),
    scope,
    updated: localDay(statSync(file).mtime),
    origin: 'claude-code',
  };
}

function typeOf(value: unknown): MemoryType {
  return typeof value === 'string' && (MEMORY_TYPES as readonly string[]).includes(value) ? (value as MemoryType) : 'project';
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function oneLine(value: string): string {
  return value.replace(/\s+/g, ' ').trim();
}
