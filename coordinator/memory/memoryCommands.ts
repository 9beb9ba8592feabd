import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { checkDraft, refusalLine } from '../../shared/context/memory/admission.js';
import { type Card, localDay } from '../../shared/context/memory/card.js';
import { formatCardFile, parseCardFile } from '../../shared/context/memory/cardFile.js';
import { claudeCodeMemoryDir, readClaudeCodeMemory } from '../../shared/context/memory/claudeCodeMemory.js';
import { describeFiled, fileCard } from '../../shared/context/memory/fileCard.js';
import { MemoryStore, type StoredPending } from '../../shared/context/memory/memoryStore.js';
import { repoIdentity } from '../../shared/context/memory/repoScope.js';
import type { Candidate } from '../../shared/context/memory/retrieval.js';
import { OrcaHome } from '../../shared/core/runtime/orcaHome.js';
import { userClaudeDir } from '../../shared/policy/settings/loadSettings.js';
import { UserError } from '../repoCheck.js';

/** `orca memory …` (docs/cli.md, docs/memory.md): the cards, audited and changed by a person. */

function store(): MemoryStore {
  return MemoryStore.inHome(new OrcaHome(process.env.ORCA_HOME || undefined).root);
}

function today(): string {
  return localDay(new Date());
}

/** The project a command means: `--repo`, else the current folder; undefined outside a repository. */
async function projectOf(repo: string | undefined): Promise<{ scope: string; mainRoot: string } | undefined> {
  const dir = path.resolve(repo ?? process.cwd());
  try {
    return await repoIdentity(dir);
  } catch {
    if (repo) throw new UserError(`${dir} is not a git repository: pass --repo with one.`);
    return undefined;
  }
}

/** `user`, `project` (this repository's), `project:<id>` or `all`. */
async function scopeFilter(scope: string | undefined, repo: string | undefined): Promise<string[] | undefined> {
  if (scope === undefined || scope === 'all') return undefined;
  if (scope === 'user' || scope.startsWith('project:')) return [scope];
  if (scope === 'project') {
    const project = await projectOf(repo);
    if (!project) throw new UserError('--scope project needs a repository: run it inside one, or pass --repo.');
    return [project.scope];
  }
  throw new UserError(`--scope ${scope} is not a scope: use user, project, project:<repository id> or all.`);
}

export async function memoryList(options: { scope?: string; repo?: string; json: boolean }): Promise<number> {
  const scopes = await scopeFilter(options.scope, options.repo);
  const loaded = store().load(scopes);
  for (const problem of loaded.problems) process.stderr.write(`orca: ${problem}\n`);
  const cards: Array<Candidate & { confidence?: number; source: string; file: string }> = loaded.cards.map(({ card, file }) => ({
    ...card,
    origin: 'orca' as const,
    file,
  }));
  const project = await projectOf(options.repo);
  const claudeDir = project ? claudeCodeMemoryDir(userClaudeDir(), project.mainRoot) : undefined;
  if (project && claudeDir && (!scopes || scopes.includes(project.scope))) {
    const claude = readClaudeCodeMemory(claudeDir, project.scope);
    for (const problem of claude.problems) process.stderr.write(`orca: ${problem}\n`);
    cards.push(...claude.cards.map((card) => ({ ...card, source: 'claude-code', file: claudeDir })));
  }
  const pending = store().pending().items.length;
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ cards, pending })}\n`);
    return 0;
  }
  if (cards.length === 0) process.stdout.write('no memory cards\n');
  for (const card of cards) {
    process.stdout.write(
      `${card.id}\t${card.type}\t${card.scope}\t${card.updated}\t${card.title}${card.origin === 'claude-code' ? ' (Claude Code, read-only)' : ''}\n`,
    );
  }
  if (pending > 0) process.stdout.write(`${pending} card(s) wait for review: orca memory review\n`);
  return 0;
}

export async function memoryShow(id: string): Promise<number> {
  const memory = store();
  const stored = memory.find(id);
  const pending = stored ? undefined : memory.pending().items.find((item) => item.pending.id === id);
  const file = stored?.file ?? pending?.file;
  if (!file) throw new UserError(`there is no card ${id}: orca memory list shows the cards.`);
  process.stdout.write(`${file}\n\n${readFileSync(file, 'utf8')}`);
  return 0;
}

export async function memoryAdd(options: {
  type: string;
  title: string;
  description: string;
  scope?: string;
  repo?: string;
  confidence?: number;
}): Promise<number> {
  const wanted = options.scope ?? (options.type === 'user' ? 'user' : 'project');
  let scope: string;
  if (wanted === 'user' || wanted.startsWith('project:')) scope = wanted;
  else if (wanted === 'project') {
    const project = await projectOf(options.repo);
    if (!project) throw new UserError('a project card needs a repository: run orca memory add inside one, pass --repo, or --scope user.');
    scope = project.scope;
  } else throw new UserError(`--scope ${wanted} is not a scope: use user, project or project:<repository id>.`);
  const filed = await fileCard(
    store(),
    {
      type: options.type,
      title: options.title,
      description: options.description,
      scope,
      confidence: options.confidence ?? 1,
      source: 'user',
    },
    { today: today() },
  );
  if (filed.kind === 'refused') throw new UserError(describeFiled(filed));
  process.stdout.write(`${describeFiled(filed)}\n`);
  return 0;
}

export async function memoryRemove(id: string): Promise<number> {
  const memory = store();
  const removed = await memory.change(() => {
    const card = memory.remove(id);
    if (card) return card.file;
    const pending = memory.pending().items.find((item) => item.pending.id === id);
    if (!pending) return undefined;
    memory.dropPending(id);
    return pending.file;
  });
  if (!removed) throw new UserError(`there is no card ${id}: orca memory list shows the cards.`);
  process.stdout.write(`removed ${id} (${removed})\n`);
  return 0;
}

type Decision = 'keep' | 'take' | 'edit' | 'skip';

/**
 * `orca memory review`: each card that contradicts a kept one, beside it; the person keeps the
 * old, takes the new (it replaces the old one, same id), or edits the new in $VISUAL/$EDITOR
 * first (the admission rules hold for the edit too). `--keep`, `--take` and `--edit` decide one
 * without asking; otherwise the answers are read from stdin, a line each.
 */
export async function memoryReview(options: { keep?: string; take?: string; edit?: string }): Promise<number> {
  const memory = store();
  const { items, problems } = memory.pending();
  for (const problem of problems) process.stderr.write(`orca: ${problem}\n`);
  const given = options.keep
    ? ['keep', options.keep]
    : options.take
      ? ['take', options.take]
      : options.edit
        ? ['edit', options.edit]
        : undefined;
  if (given) {
    const item = items.find((candidate) => candidate.pending.id === given[1]);
    if (!item) throw new UserError(`no card ${given[1]} waits for review: orca memory review lists them.`);
    process.stdout.write(`${await decide(memory, item, given[0] as Decision)}\n`);
    return 0;
  }
  if (items.length === 0) {
    process.stdout.write('nothing to review\n');
    return 0;
  }
  const lines = createInterface({ input: process.stdin, terminal: false })[Symbol.asyncIterator]();
  for (const item of items) {
    const old = memory.find(item.pending.conflicts_with)?.card;
    process.stdout.write(describeConflict(item, old));
    process.stdout.write('[k]eep the kept card, [t]ake the new one, [e]dit the new one, [s]kip? ');
    const answer = await lines.next();
    if (answer.done) {
      process.stdout.write('\n(no answer: the rest wait)\n');
      break;
    }
    const answers: Record<string, Decision> = { k: 'keep', t: 'take', e: 'edit', s: 'skip' };
    const decision = answers[answer.value.trim().charAt(0).toLowerCase()];
    if (!decision) {
      process.stdout.write(`\n"${answer.value.trim()}" is not k, t, e or s: ${item.pending.id} waits\n`);
      continue;
    }
    process.stdout.write(`${await decide(memory, item, decision)}\n`);
  }
  return 0;
}

function describeConflict(item: StoredPending, old: Card | undefined): string {
  const { pending } = item;
  const kept = old
    ? `kept ${old.id} (${old.type}, ${old.updated}, ${old.source}):\n  ${old.title}\n  ${old.description}`
    : `kept ${pending.conflicts_with}: no longer there`;
  return `\n${pending.id} contradicts ${pending.conflicts_with}: ${pending.reason}\n${kept}\nnew (${pending.type}, ${pending.created}, ${pending.source}):\n  ${pending.title}\n  ${pending.description}\n`;
}

async function decide(memory: MemoryStore, item: StoredPending, decision: Decision): Promise<string> {
  const { pending } = item;
  if (decision === 'skip') return `${pending.id} waits`;
  if (decision === 'keep') {
    await memory.change(() => memory.dropPending(pending.id));
    return `kept ${pending.conflicts_with}; ${pending.id} dropped`;
  }
  const { conflicts_with: _conflicts, reason: _reason, ...card } = pending;
  let proposed: Card = card;
  if (decision === 'edit') proposed = editCard(proposed);
  const admission = checkDraft(proposed, { today: today() });
  if (!admission.ok) throw new UserError(`${refusalLine(admission.refusals)} (${pending.id} still waits)`);
  return memory.change(() => {
    const old = memory.find(pending.conflicts_with);
    const card: Card = {
      ...admission.draft,
      id: old?.card.id ?? pending.id,
      created: old?.card.created ?? pending.created,
      updated: today(),
      source: decision === 'edit' ? 'user' : pending.source,
    };
    memory.save(card, old?.notes ?? '');
    memory.dropPending(pending.id);
    return `${card.id} now says: ${card.title}: ${card.description}`;
  });
}

/** The proposed card in the user's editor; what they save is read back as a card. */
function editCard(card: Card): Card {
  const editor = process.env.VISUAL || process.env.EDITOR;
  if (!editor) throw new UserError('set VISUAL or EDITOR to edit a card (or answer k or t)');
  const file = path.join(os.tmpdir(), `orca-review-${card.id}-${process.pid}.md`);
  writeFileSync(file, formatCardFile(card));
  try {
    const run = spawnSync('sh', ['-c', `${editor} "$1"`, 'editor', file], { stdio: 'inherit' });
    if (run.status !== 0) throw new UserError(`the editor (${editor}) exited with ${run.status ?? run.signal}: nothing was changed`);
    if (!existsSync(file)) throw new UserError('the edited card is gone: nothing was changed');
    return parseCardFile(readFileSync(file, 'utf8'), file).card;
  } finally {
    rmSync(file, { force: true });
  }
}
