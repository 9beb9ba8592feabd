import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { describeZodError } from '../boundary/zodIssues.js';
import { ownGitDir } from './gitFolders.js';
import { linkedDependencies } from './linkDependencies.js';

/**
 * What orca itself put into a new worktree before its agent started: files copied by
 * `.worktreeinclude`, `.env.orca`, folders linked in, files a setup command made. They are the
 * worktree's start state, not the agent's change: no commit of orca's takes them, and a guarded
 * one the agent changed is told apart from one it left alone by its hash. Kept in the worktree's
 * own git folder (never in the tree), as `orca-start.json`.
 */
export const StartEntrySchema = z.object({
  /** Relative to the worktree root, forward slashes. */
  path: z.string(),
  kind: z.enum(['included', 'env', 'linked', 'setup']),
  /** sha256 of the bytes orca left there (of the link target for a link). */
  sha256: z.string(),
});
export type StartEntry = z.infer<typeof StartEntrySchema>;
const StartStateSchema = z.object({ entries: z.array(StartEntrySchema) });

const FILE_NAME = 'orca-start.json';

/** The worktree's own git folder: `.git` is a file naming it in a linked worktree, the folder itself in a main checkout. */
export function worktreeGitDir(dir: string): string {
  const own = ownGitDir(dir);
  if (own === undefined) throw new Error(`${dir} has no git folder: its .git is missing, or is a file that names none`);
  return own;
}

/** The hash of what is at `file` now: a link's target, a file's bytes; undefined when nothing is there. */
export function entryHash(file: string): string | undefined {
  let stat: ReturnType<typeof lstatSync>;
  try {
    stat = lstatSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const hash = createHash('sha256');
  if (stat.isSymbolicLink()) hash.update(`link:${readlinkSync(file)}`);
  else if (stat.isFile()) hash.update(readFileSync(file));
  else hash.update('folder');
  return hash.digest('hex');
}

/** The entry for a path orca just put in the worktree, hashed as it is now. */
export function startEntry(dir: string, relative: string, kind: StartEntry['kind']): StartEntry {
  const sha256 = entryHash(path.join(dir, relative));
  if (sha256 === undefined) throw new Error(`${relative} is not in ${dir}, though orca just put it there`);
  return { path: relative, kind, sha256 };
}

/** Records (adds to) the worktree's start state. */
export function recordStartState(dir: string, entries: StartEntry[]): void {
  const known = new Map(readStartState(dir).map((entry) => [entry.path, entry]));
  for (const entry of entries) known.set(entry.path, entry);
  writeFileSync(path.join(worktreeGitDir(dir), FILE_NAME), `${JSON.stringify({ entries: [...known.values()] }, null, 2)}\n`);
}

/** The worktree's recorded start state; none for a worktree orca did not prepare. */
export function readStartState(dir: string): StartEntry[] {
  if (!existsSync(path.join(dir, '.git'))) return [];
  const file = path.join(worktreeGitDir(dir), FILE_NAME);
  if (!existsSync(file)) return [];
  const parsed = StartStateSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  if (!parsed.success) throw new Error(describeZodError(parsed.error, file));
  return parsed.data.entries;
}

/** The start files whose content is no longer what orca put there (changed or removed): the agent's doing. */
export function changedStartFiles(dir: string): StartEntry[] {
  return readStartState(dir).filter((entry) => entryHash(path.join(dir, entry.path)) !== entry.sha256);
}

/** Every path of the worktree that is orca's, not the agent's: what no commit of orca's takes. */
export function orcaOwnedPaths(dir: string): string[] {
  return [...new Set([...linkedDependencies(dir), ...readStartState(dir).map((entry) => entry.path)])];
}
