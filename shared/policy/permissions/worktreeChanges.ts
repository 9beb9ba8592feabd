import { realpathSync } from 'node:fs';
import path from 'node:path';
import { launchGit, whyGitFailed } from '../../core/git/git.js';
import { v2RecordPath } from '../../core/git/statusV2.js';
import type { Launched } from '../../core/runtime/launcher.js';
import { type EntryState, readEntry, readTree, sameEntry } from './fileSnapshot.js';
import { guardedReason } from './guardedPaths.js';

/** Git as the host runs it on a tree an agent wrote (gitSafety.ts), paths unquoted and no optional locks taken. */
export async function watchGit(cwd: string, args: string[]): Promise<string> {
  const failed = (why: string) => new Error(`git ${args.join(' ')} failed in ${cwd}: ${why}`);
  let ran: Launched;
  try {
    ran = await launchGit(cwd, ['-c', 'core.quotePath=false', ...args], { env: { GIT_OPTIONAL_LOCKS: '0' }, maxBuffer: 256 * 1024 * 1024 });
  } catch (error) {
    throw failed((error as Error).message);
  }
  if (ran.code !== 0) throw failed(whyGitFailed(ran));
  return ran.stdout.toString('utf8');
}

const nulList = (out: string) => out.split('\0').filter(Boolean);

/** What one look at a worktree found (lookAtWorktree). */
export interface WorktreeLook {
  /** Every path that differs from the start commit, untracked ones included, but for what orca linked in. */
  changed: string[];
  /** git's ignored entries (a folder that an ignore rule matches as one, with a trailing slash); only when asked for. */
  ignored: string[];
}

/**
 * One look at a worktree, with one `git status` where it can answer: every path that differs
 * from the `start` commit (tracked files changed or deleted, commits the agent made itself
 * included: the comparison is with the commit, not with HEAD; untracked files), but for what orca
 * linked in, and, with `ignored`, the ignored entries. Ignored files are not changes: no commit
 * takes them (guarded ones are watched apart).
 *
 * The status compares with HEAD, and names the HEAD it compared with: at `start`, its list is the
 * diff's, but for entries changed both in the index and on disk (the file may be back as it
 * started), which one `git diff` of just those paths decides. Elsewhere (the agent committed, or
 * moved HEAD) the tracked changes are a `git diff` with the start commit.
 */
export async function lookAtWorktree(
  root: string,
  start: string,
  linked: readonly string[],
  options: { ignored?: boolean } = {},
): Promise<WorktreeLook> {
  return (await lookAndStatus(root, start, linked, options)).look;
}

/**
 * lookAtWorktree's look, with git's own answer it read it from: `git status --porcelain=v2
 * --branch -z --untracked-files=all --no-renames` (with `--ignored=matching` when asked), for
 * callers that would ask git the same question (worktreeWatch.ts `lastStatus`).
 */
export async function lookAndStatus(
  root: string,
  start: string,
  linked: readonly string[],
  options: { ignored?: boolean } = {},
): Promise<{ look: WorktreeLook; status: string }> {
  const out = await watchGit(root, [
    'status',
    '--porcelain=v2',
    '--branch',
    '-z',
    '--untracked-files=all',
    '--no-renames',
    `--ignored=${options.ignored ? 'matching' : 'no'}`,
  ]);
  const tracked = new Set<string>();
  const unsure: string[] = [];
  const untracked: string[] = [];
  const ignored: string[] = [];
  let head: string | undefined;
  const records = out.split('\0');
  for (let index = 0; index < records.length; index += 1) {
    const record = records[index]!;
    if (record.startsWith('# branch.oid ')) head = record.slice('# branch.oid '.length);
    else if (record.startsWith('? ')) untracked.push(record.slice(2));
    else if (record.startsWith('! ')) ignored.push(record.slice(2));
    else if (record.startsWith('1 ')) {
      const xy = record.slice(2, 4);
      const file = v2RecordPath(record, 8);
      // Changed in the index and again on disk: the file may be as it was at the start.
      if (xy[0] !== '.' && xy[1] !== '.') unsure.push(file);
      else tracked.add(file);
    } else if (record.startsWith('2 ')) {
      // A rename (not asked for, but a config may force one): the new path, then the old as a record of its own.
      tracked.add(v2RecordPath(record, 9));
      index += 1;
      if (records[index]) tracked.add(records[index]!);
    } else if (record.startsWith('u ')) unsure.push(v2RecordPath(record, 10));
  }
  if (head !== start) {
    // HEAD moved off the start (or is unborn): the tracked changes are the diff with the start commit.
    tracked.clear();
    for (const file of nulList(await watchGit(root, ['diff', '--name-only', '-z', '--no-renames', start, '--']))) tracked.add(file);
  } else if (unsure.length > 0) {
    const specs = unsure.map((file) => `:(literal)${file}`);
    for (const file of nulList(await watchGit(root, ['diff', '--name-only', '-z', '--no-renames', start, '--', ...specs])))
      tracked.add(file);
  }
  const isLinked = (file: string) => linked.some((name) => file === name || file.startsWith(`${name}/`));
  const changed = [...new Set([...tracked, ...untracked])].filter((file) => !isLinked(file)).sort();
  return { look: { changed, ignored }, status: out };
}

/** Every path in the worktree that differs from the `start` commit (lookAtWorktree's `changed`). */
export async function changedSince(root: string, start: string, linked: readonly string[]): Promise<string[]> {
  return (await lookAtWorktree(root, start, linked)).changed;
}

/**
 * The guarded entries (guardedPaths.ts) among a look's ignored ones, which git's lists of changes
 * leave out (`.env`, `.claude/settings.local.json` are usually ignored): whole ignored guarded
 * folders walked file by file, with what each holds. `.git` itself is the git-dir guard's.
 */
export function guardedIgnored(root: string, ignored: readonly string[]): Map<string, EntryState> {
  const found = new Map<string, EntryState>();
  for (const entry of ignored) {
    const relative = entry.replace(/\/$/, '');
    if (!guardedReason(relative)) continue;
    for (const [file, state] of readTree(path.join(root, relative))) found.set(toRelative(root, file), state);
  }
  return found;
}

/**
 * The guarded entries at or under `paths` (relative to `root`), as they are now: every one, ignored
 * by git or not (a link is not followed). What a look of git's at those paths could name, and more.
 */
export function guardedWithin(root: string, paths: readonly string[]): Map<string, EntryState> {
  const found = new Map<string, EntryState>();
  for (const relative of paths) {
    for (const [file, state] of readTree(path.join(root, relative))) {
      const name = toRelative(root, file);
      if (state.kind !== 'missing' && guardedReason(name)) found.set(name, state);
    }
  }
  return found;
}

/** Where a symbolic link at `relative` leads when that is outside the worktree; undefined for anything else. */
export function linkOutside(root: string, relative: string, state: EntryState = readEntry(path.join(root, relative))): string | undefined {
  if (state.kind !== 'link') return undefined;
  const file = path.join(root, relative);
  const target = path.resolve(path.dirname(file), state.target);
  let real = target;
  try {
    real = realpathSync(target);
  } catch {
    // A dangling link: judged by where it points.
  }
  const inside = (p: string) => p === root || p.startsWith(root + path.sep);
  return inside(real) && inside(target) ? undefined : real;
}

export function toRelative(root: string, file: string): string {
  return path.relative(root, file).split(path.sep).join('/');
}

export { sameEntry };
