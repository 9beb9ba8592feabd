import { type Dirent, mkdirSync, readdirSync, realpathSync, symlinkSync } from 'node:fs';
import path from 'node:path';

/**
 * Folders tools write their caches to inside `node_modules` (find-cache-dir's `.cache`: ava, xo,
 * babel-loader, terser; vite's `.vite` and `.vite-temp`, which vitest writes to bundle a
 * TypeScript config). Never linked: each worktree's tools start their own, in the worktree's own
 * (writable) `node_modules`, instead of writing into the checkout's through a link, which the
 * sandbox keeps read-only.
 */
const TOOL_CACHES = new Set(['.cache', '.vite', '.vite-temp']);

/** Where links lead: the user's checkout (what is installed) and the worktree (the project's own files). */
export interface LinkRoots {
  checkout: string;
  worktree: string;
}

/**
 * Makes `target` a folder of its own holding one link per entry of the checkout's `source`
 * (a `node_modules`), rather than one link to the whole folder, so that:
 * - a workspace package (npm, yarn or pnpm workspaces install `node_modules/x` as a link to
 *   `../packages/x`) resolves to the worktree's `packages/x`, the code the agent changed, never the
 *   checkout's (so are `.bin` entries leading into one);
 * - what tools write into `node_modules` (their caches) lands in the worktree, writable;
 * - everything installed (a package folder, pnpm's `.pnpm` store) is still the checkout's, shared.
 * `@scope` folders and `.bin` are made the same way, one level down.
 */
export function linkNodeModules(source: string, target: string, roots: LinkRoots): void {
  const checkoutReal = realpathSync(roots.checkout);
  mkdirSync(target, { recursive: true });
  for (const entry of readdirSync(source, { withFileTypes: true })) {
    if (TOOL_CACHES.has(entry.name)) continue;
    const from = path.join(source, entry.name);
    const to = path.join(target, entry.name);
    if (entry.isDirectory() && (entry.name.startsWith('@') || entry.name === '.bin')) {
      linkEntries(from, to, checkoutReal, roots.worktree);
    } else symlinkSync(linkTarget(from, entry, checkoutReal, roots.worktree), to);
  }
}

/** One level down (a scope's packages, `.bin`'s programs): each entry linked as above. */
function linkEntries(source: string, target: string, checkoutReal: string, worktree: string): void {
  mkdirSync(target, { recursive: true });
  for (const entry of readdirSync(source, { withFileTypes: true })) {
    symlinkSync(linkTarget(path.join(source, entry.name), entry, checkoutReal, worktree), path.join(target, entry.name));
  }
}

/**
 * The checkout's entry itself, unless it is a link into the checkout's own files (outside any
 * `node_modules`: a workspace package, a program of one): then the same path in the worktree.
 */
function linkTarget(from: string, entry: Dirent, checkoutReal: string, worktree: string): string {
  if (!entry.isSymbolicLink()) return from;
  let real: string;
  try {
    real = realpathSync(from);
  } catch {
    return from; // Dangling in the checkout: as dangling in the worktree, as the checkout has it.
  }
  const relative = path.relative(checkoutReal, real);
  const inside = relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
  if (!inside || relative.split(path.sep).includes('node_modules')) return from;
  return path.join(worktree, relative);
}
