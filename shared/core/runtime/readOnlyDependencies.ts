import { readFileSync } from 'node:fs';

const NOTE = readFileSync(new URL('./readOnlyDependencies.txt', import.meta.url), 'utf8').trim();

/** A failed write under node_modules as Node, npm and the shell say it (`EROFS: read-only file system, open '…/node_modules/…'`). */
const READ_ONLY_WRITE = /(?:EROFS|read-only file system)[^\n]*?([^\s'"`]*node_modules\/[^\s'"`]*)/i;

/**
 * What a sandboxed command's output gets when it failed to write into `node_modules`: installed
 * packages are the checkout's, linked in and read-only in the sandbox (docs/worktrees.md). Says
 * which path, why, and what to do; undefined for output that shows no such failure.
 */
export function readOnlyDependencyNote(output: string): string | undefined {
  const found = READ_ONLY_WRITE.exec(output);
  return found ? NOTE.replace('{path}', found[1]!) : undefined;
}
