import { statfsSync } from 'node:fs';
import { z } from 'zod';
import { describeZodError } from '../boundary/zodIssues.js';
import { gitAt } from './git.js';

const PoolSizeSchema = z.coerce.number().int().min(0).max(1_000);

/**
 * `ORCA_POOL_SIZE`: how many ready worktrees a run keeps per repository on this host; 0 turns the
 * pool off. Unset: the run's agent slots (the coordinator's), or the worker's own concurrency.
 */
export function poolSizeSetting(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const raw = env.ORCA_POOL_SIZE;
  if (raw === undefined || raw.trim() === '') return undefined;
  const parsed = PoolSizeSchema.safeParse(raw.trim());
  if (!parsed.success)
    throw new Error(
      `${describeZodError(parsed.error, `ORCA_POOL_SIZE=${raw}`)}: set it to a whole number of worktrees (0 turns the pool off)`,
    );
  return parsed.data;
}

/**
 * What a checkout of `commit` takes on disk, roughly: each file rounded up to 4 KiB blocks, plus
 * its index entry. One `ls-tree` of the commit; the pool asks it once per repository.
 */
export async function checkoutBytes(repo: string, commit: string): Promise<number> {
  const out = await gitAt(repo).raw(['ls-tree', '-r', '-l', '-z', '--full-tree', commit]);
  let bytes = 0;
  for (const entry of out.split('\0')) {
    const size = Number(entry.split('\t', 1)[0]!.trim().split(/\s+/)[3]);
    if (Number.isFinite(size)) bytes += Math.ceil(Math.max(size, 1) / 4_096) * 4_096 + 128;
  }
  return bytes;
}

/**
 * The disk bound of a pool: one more pooled worktree of `bytes` is made only when, after it, the
 * file system holding `dir` keeps a tenth of its size and one more checkout free. The pool is a
 * speed-up: the jobs' own worktrees, what their builds write and a cold `git worktree add` must
 * always find room, so a full disk shrinks the pool first.
 */
export function roomForOne(dir: string, bytes: number): boolean {
  const fs = statfsSync(dir);
  const free = fs.bavail * fs.bsize;
  const reserve = (fs.blocks * fs.bsize) / 10 + bytes;
  return free - bytes >= reserve;
}
