import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { describeZodError } from '../boundary/zodIssues.js';
import { RefFiles } from './refFiles.js';

// A pool's folder on disk (`ORCA_HOME/pool/<run>/<repoKey>/`): its state file and the names of
// its worktrees, ready or being worked on. The folder is the pool's whole state (worktreePool.ts).

/**
 * `pool.json` in a pool's folder: the pool is open while it is there. `size`: the ready worktrees
 * to keep (the largest any process asked for); `head`: the commit they are kept at (the newest base
 * a job of the run brought, or the integration head after a merge).
 */
export const PoolStateSchema = z.object({ repo: z.string(), size: z.number().int().min(0), head: z.string().regex(/^[0-9a-f]{40}$/) });
export type PoolState = z.infer<typeof PoolStateSchema>;

export const STATE_FILE = 'pool.json';
/** A ready worktree: `w` and 8 hex digits. Only these are ever taken. */
export const READY = /^w[0-9a-f]{8}$/;
/** One being filled or moved to a new head by a process: `<id>.<host>-<pid>.busy`, never taken. */
export const BUSY = /^(w[0-9a-f]{8})\.([0-9a-f]{6})-(\d+)\.busy$/;
export const HOST = Buffer.from(os.hostname()).toString('hex').slice(-6).padStart(6, '0');

/** The ready worktrees' folders in a pool's folder: what a take may hand out now. */
export function readyWorktrees(folder: string): string[] {
  return listNames(folder)
    .filter((name) => READY.test(name))
    .map((name) => path.join(folder, name));
}

export function busyName(name: string): string {
  return `${name}.${HOST}-${process.pid}.busy`;
}

/** A pooled worktree's commit, read from its ref files (no process): undefined when it cannot be read or is not detached. */
export function headOf(dir: string): string | undefined {
  try {
    const head = RefFiles.open(dir)?.head();
    return head?.kind === 'oid' ? head.oid : undefined;
  } catch {
    return undefined;
  }
}

export function readState(folder: string): PoolState | undefined {
  let text: string;
  try {
    text = readFileSync(path.join(folder, STATE_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const parsed = PoolStateSchema.safeParse(JSON.parse(text));
  if (!parsed.success) throw new Error(`${describeZodError(parsed.error, path.join(folder, STATE_FILE))}: remove the folder (orca clean)`);
  return parsed.data;
}

export function writeState(folder: string, state: PoolState): void {
  mkdirSync(folder, { recursive: true });
  const file = path.join(folder, STATE_FILE);
  // Renamed into place: a reader never sees half a file.
  writeFileSync(`${file}.${process.pid}`, `${JSON.stringify(state)}\n`);
  renameSync(`${file}.${process.pid}`, file);
}

export function listNames(folder: string): string[] {
  try {
    return readdirSync(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

export function removeEmpty(folder: string): void {
  if (existsSync(folder) && listNames(folder).length === 0) rmSync(folder, { recursive: true, force: true });
  const parent = path.dirname(folder);
  if (existsSync(parent) && listNames(parent).length === 0 && path.basename(path.dirname(parent)) === 'pool')
    rmSync(parent, { recursive: true, force: true });
}
