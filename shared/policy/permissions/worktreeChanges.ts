import { execFile } from 'node:child_process';
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { type EntryState, readEntry, readTree, sameEntry } from './fileSnapshot.js';
import { guardedReason } from './guardedPaths.js';

/**
 * Git as the host runs it on a tree an agent wrote: no fsmonitor or hooks from a config the agent
 * may have changed (the git-dir guard has put the config back before this runs, in any case).
 */
const SAFE_GIT = ['-c', 'core.fsmonitor=false', '-c', 'core.hooksPath=/dev/null', '-c', 'core.quotePath=false'];

export function safeGit(cwd: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      [...SAFE_GIT, ...args],
      { cwd, env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0' }, maxBuffer: 256 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`git ${args.join(' ')} failed in ${cwd}: ${stderr.trim() || error.message}`));
        resolve(stdout);
      },
    );
  });
}

const nulList = (out: string) => out.split('\0').filter(Boolean);

/**
 * Every path in the worktree that differs from the `start` commit: tracked files changed or
 * deleted (commits the agent made itself included: the comparison is with the commit, not with
 * HEAD) and untracked files, but for what orca linked in. Ignored files are not here: no commit
 * takes them (guarded ones are watched apart).
 */
export async function changedSince(root: string, start: string, linked: readonly string[]): Promise<string[]> {
  const [tracked, untracked] = await Promise.all([
    safeGit(root, ['diff', '--name-only', '-z', '--no-renames', start, '--']),
    safeGit(root, ['ls-files', '--others', '--exclude-standard', '-z']),
  ]);
  const isLinked = (file: string) => linked.some((name) => file === name || file.startsWith(`${name}/`));
  return [...new Set([...nulList(tracked), ...nulList(untracked)])].filter((file) => !isLinked(file)).sort();
}

/**
 * The guarded entries (guardedPaths.ts) in the worktree that git's lists of changes leave out or
 * may leave out: ignored ones (`.env`, `.claude/settings.local.json` are usually ignored), whole
 * ignored guarded folders walked file by file, with what each holds. `.git` itself is the git-dir
 * guard's.
 */
export async function guardedIgnored(root: string): Promise<Map<string, EntryState>> {
  const listed = nulList(await safeGit(root, ['ls-files', '--others', '--ignored', '--exclude-standard', '--directory', '-z']));
  const found = new Map<string, EntryState>();
  for (const entry of listed) {
    const relative = entry.replace(/\/$/, '');
    if (!guardedReason(relative)) continue;
    for (const [file, state] of readTree(path.join(root, relative))) found.set(toRelative(root, file), state);
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
