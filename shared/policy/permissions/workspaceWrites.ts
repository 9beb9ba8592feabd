import { existsSync, readdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import picomatch from 'picomatch';
import { ToolError } from '../../core/boundary/toolError.js';
import { entryExists } from '../../core/files/entryExists.js';
import { isInside, type Workspace } from '../../core/files/workspace.js';
import { guardedReason } from './guardedPaths.js';
import { isHarmlessWriteTarget } from './shell/bashAnalysis.js';
import type { PossibleCwds } from './shell/shellTypes.js';

/**
 * Where a path a Bash call writes really lands, judged against the workspace the way the kernel
 * will resolve it: relative to each folder the command may run in, `..` taken after following
 * the symbolic link before it (`link/../x` is beside the link's target, not beside the link),
 * symbolic links followed (or, for an entry that is removed or renamed, its folder's), and a
 * pattern (`build/*.o`) judged by its folder and by every file it matches now.
 */
export type WrittenPaths =
  | { kind: 'nowhere' }
  | { kind: 'unknowable'; why: string }
  | { kind: 'refused'; reason: string }
  /** The paths as named and as resolved; `relatives` (inside the workspace) are the ones the guarded-path rule judges. */
  | { kind: 'paths'; paths: string[]; relatives: string[] };

export interface WrittenPath {
  value: string;
  cwd: PossibleCwds;
  /** A pattern the shell expands against the files there now. */
  glob?: boolean;
  /** The entry itself is written (rm, mv's source): a symbolic link there is not followed. */
  entry?: boolean;
}

export interface WriteBounds {
  workspace: Workspace;
  /** Folders outside the workspace that may be written (the sandbox's private /tmp). */
  writableOutside: string[];
}

export function writtenPaths(target: WrittenPath, bounds: WriteBounds): WrittenPaths {
  const { workspace } = bounds;
  if (isHarmlessWriteTarget(target.value)) return { kind: 'nowhere' };
  if (target.cwd === undefined && !path.posix.isAbsolute(target.value)) {
    return { kind: 'unknowable', why: 'it is relative to a folder that a cd, source, function or find -execdir before it leaves unknown' };
  }
  const paths: string[] = [];
  const relatives: string[] = [];
  for (const cwd of target.cwd ?? ['.']) {
    const base = path.resolve(workspace.root, cwd);
    const named: Array<{ file: string; guardable: boolean }> = [];
    if (target.glob) {
      const expanded = expandPattern(base, target.value);
      if ('why' in expanded) return { kind: 'unknowable', why: expanded.why };
      named.push(...expanded.files);
    } else {
      named.push({ file: physicalPath(base, target.value), guardable: true });
    }
    for (const { file, guardable } of named) {
      // The sandbox's private /tmp is not the host's: nothing written there reaches the user.
      if (!workspace.contains(file) && bounds.writableOutside.some((dir) => isInside(file, dir))) continue;
      const resolved = target.entry ? resolveEntry(workspace, file) : resolveInWorkspace(workspace, file, 'write');
      if ('refusal' in resolved) return { kind: 'refused', reason: resolved.refusal };
      paths.push(...resolved.paths);
      if (guardable) relatives.push(...resolved.relatives);
    }
  }
  if (paths.length === 0) return { kind: 'nowhere' };
  return { kind: 'paths', paths: [...new Set(paths)], relatives: [...new Set(relatives)] };
}

/** The path as given and where it really leads (symlinks followed), or the workspace's refusal. */
export function resolveInWorkspace(
  workspace: Workspace,
  requested: string,
  access: 'read' | 'write',
): { real: string; paths: string[]; relatives: string[] } | { refusal: string } {
  let real: string;
  try {
    real = workspace.resolve(requested, access);
  } catch (error) {
    if (error instanceof ToolError) return { refusal: error.message };
    throw error;
  }
  const paths = [...new Set([path.resolve(workspace.root, requested), real])];
  const relatives = paths.filter((file) => workspace.contains(file)).map((file) => workspace.relative(file));
  return { real, paths, relatives };
}

/** The first of `relatives` that needs an allow rule naming it, and why; undefined when none does. */
export function guardedOf(relatives: string[]): { relative: string; reason: string } | undefined {
  for (const relative of relatives) {
    const reason = guardedReason(relative);
    if (reason) return { relative, reason };
  }
  return undefined;
}

/** An entry that is removed or renamed: its folder is what changes, so a link there is not followed. */
function resolveEntry(workspace: Workspace, file: string): { paths: string[]; relatives: string[] } | { refusal: string } {
  if (file === workspace.root || file === path.dirname(file)) return resolveInWorkspace(workspace, file, 'write');
  const folder = resolveInWorkspace(workspace, path.dirname(file), 'write');
  if ('refusal' in folder) {
    // Name the entry itself when it is outside too: `rm /x/y` is about /x/y, not /x.
    const itself = resolveInWorkspace(workspace, file, 'write');
    return 'refusal' in itself ? itself : folder;
  }
  const paths = [...new Set([file, path.join(folder.real, path.basename(file))])];
  return { paths, relatives: paths.filter((entry) => workspace.contains(entry)).map((entry) => workspace.relative(entry)) };
}

/**
 * `value` from `base` as the kernel walks it: each `..` steps out of where the path so far really
 * is, so a `..` after a symbolic link leaves the link's target, not the folder holding the link.
 */
function physicalPath(base: string, value: string): string {
  let current = path.posix.isAbsolute(value) ? '/' : base;
  for (const segment of value.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') current = path.dirname(existsSync(current) ? realpathSync(current) : current);
    else current = path.join(current, segment);
  }
  return current;
}

/**
 * A pattern: its literal folder, the pattern itself (the shell passes it on as written when
 * nothing matches), and what it matches now, hidden files included (`shopt -s dotglob` may be
 * on). Only what a plain `*` matches is judged for guarded paths, as the shell's default.
 */
function expandPattern(base: string, value: string): { files: Array<{ file: string; guardable: boolean }> } | { why: string } {
  const segments = value.split('/');
  const first = segments.findIndex((segment) => /[*?[]/.test(segment));
  if (first === -1) return { files: [{ file: physicalPath(base, value), guardable: true }] };
  const rest = segments.slice(first);
  // A name starting with a dot is only matched by a pattern that starts with one (`.*` may match `..`).
  if (rest.includes('..') || rest.some((segment) => /^[.[]/.test(segment) && patternMatches(segment, '..'))) {
    return { why: `the pattern ${value} may climb out of its folder with ..` };
  }
  const folder = physicalPath(base, segments.slice(0, first).join('/') || (path.posix.isAbsolute(value) ? '/' : '.'));
  const visible = new Set(matching(folder, rest, false));
  return {
    files: [
      { file: path.join(folder, ...rest), guardable: true },
      ...matching(folder, rest, true).map((file) => ({ file, guardable: visible.has(file) })),
    ],
  };
}

/**
 * What the shell expands `segments` to under `folder`, walking it a segment at a time as bash
 * does: links to folders are entered, and a link itself is a match like any other name.
 */
function matching(folder: string, segments: string[], dot: boolean): string[] {
  let found = [folder];
  for (const segment of segments) {
    const next: string[] = [];
    const isMatch = /[*?[]/.test(segment) ? picomatch(segment, { dot, nobrace: true, noextglob: true, noglobstar: true }) : undefined;
    for (const dir of found) {
      if (!isMatch) {
        if (entryExists(path.join(dir, segment))) next.push(path.join(dir, segment));
        continue;
      }
      let names: string[];
      try {
        names = readdirSync(dir);
      } catch {
        continue; // Not a folder (or not readable): nothing matches under it.
      }
      for (const name of names) if (isMatch(name)) next.push(path.join(dir, name));
    }
    found = next;
  }
  return found;
}

/** Whether a shell pattern segment (`*`, `?`, `[…]`, `\x`) can match `text`; a bracket is taken to match any character. */
function patternMatches(pattern: string, text: string): boolean {
  if (pattern === '') return text === '';
  const char = pattern[0]!;
  if (char === '*') return [...Array(text.length + 1).keys()].some((skip) => patternMatches(pattern.slice(1), text.slice(skip)));
  if (text === '') return false;
  if (char === '?') return patternMatches(pattern.slice(1), text.slice(1));
  if (char === '[') {
    const close = pattern.indexOf(']', 2);
    if (close !== -1) return patternMatches(pattern.slice(close + 1), text.slice(1));
  }
  const literal = char === '\\' && pattern.length > 1 ? pattern[1]! : char;
  const width = char === '\\' && pattern.length > 1 ? 2 : 1;
  return literal === text[0] && patternMatches(pattern.slice(width), text.slice(1));
}
