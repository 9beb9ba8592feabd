import { lstatSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { headOf } from './poolFolder.js';
import { worktreeGitDir } from './worktreeStartState.js';

/**
 * What lets a take check a pooled worktree without git walking its whole tree again for untracked
 * and ignored files (the most of a whole-tree `git status`): the pool's background check records
 * every folder below the root (the commit's folders) with its modification and change times, to
 * the nanosecond, and the root's own entries by name (the root's times change whenever the pool
 * moves the worktree), all taken before its settling `git status` found the tree exactly its
 * commit (nothing changed, untracked or ignored).
 *
 * Why that is as strict as the walk: a clean tree holds no untracked or ignored entry, so any such
 * entry at the take was created after the record (or before the status, which then found it and the
 * worktree was never handed out), and creating, removing or renaming an entry, a folder included,
 * changes its parent folder's times (a root entry is seen by name). Times that still match mean no
 * folder gained or lost an entry since the status saw none. What folder times do not show (a file's bytes changed in place) is
 * what the take still asks git about: `git status --untracked-files=no`, the tracked files' stat.
 * Kept in the worktree's own git folder, never in the tree; removed by the take.
 */
const PoolCheckSchema = z.object({
  head: z.string().regex(/^[0-9a-f]{40}$/),
  /** The root's entries, sorted. */
  root: z.array(z.string()),
  /** Each folder below the root (relative) with its `mtimeNs:ctimeNs`. */
  folders: z.record(z.string(), z.string()),
});
type PoolCheck = z.infer<typeof PoolCheckSchema>;

const FILE_NAME = 'orca-pool-check.json';

function rootEntries(dir: string): string[] {
  return readdirSync(dir).sort();
}

function folderTimes(dir: string, folder: string): string | undefined {
  try {
    const stat = lstatSync(path.join(dir, folder), { bigint: true });
    return stat.isDirectory() ? `${stat.mtimeNs}:${stat.ctimeNs}` : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The folders' times of a worktree at `head`, `folders` being the commit's folders (`git ls-tree
 * -r -d`). Take it before the settling status, then `recordPoolCheck` once that status found it clean.
 */
export function poolFolderTimes(dir: string, head: string, folders: readonly string[]): PoolCheck {
  const times: Record<string, string> = {};
  for (const folder of folders) {
    const found = folderTimes(dir, folder);
    if (found === undefined) throw new Error(`${path.join(dir, folder)} is not a folder, though ${head.slice(0, 12)} has it`);
    times[folder] = found;
  }
  return { head, root: rootEntries(dir), folders: times };
}

/** Records the times taken before the status that just found `dir` exactly at their commit. */
export function recordPoolCheck(dir: string, check: PoolCheck): void {
  writeFileSync(path.join(worktreeGitDir(dir), FILE_NAME), JSON.stringify(check));
}

/**
 * The commit a taken worktree was checked clean at, when since then no folder of it gained, lost
 * or renamed an entry and its HEAD did not move: then only its tracked files' bytes remain to be
 * asked of git. Undefined when there is no record or anything differs (the caller asks git about
 * the whole tree). The record is removed either way: it describes an idle pooled worktree, never a job's.
 */
export function takePoolCheck(dir: string): string | undefined {
  let file: string;
  try {
    file = path.join(worktreeGitDir(dir), FILE_NAME);
  } catch {
    return undefined;
  }
  try {
    const parsed = PoolCheckSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    if (!parsed.success || headOf(dir) !== parsed.data.head) return undefined;
    if (rootEntries(dir).join('\0') !== parsed.data.root.join('\0')) return undefined;
    for (const [folder, times] of Object.entries(parsed.data.folders)) {
      if (folderTimes(dir, folder) !== times) return undefined;
    }
    return parsed.data.head;
  } catch {
    return undefined;
  } finally {
    rmSync(file, { force: true });
  }
}
