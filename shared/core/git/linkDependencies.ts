import { existsSync, lstatSync, mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { entryExists } from '../files/entryExists.js';

/** Installed-dependency folders a worktree borrows from its repository rather than reinstalling (orca.json's `symlinkDirectories` may name others). */
const DEPENDENCY_FOLDERS = ['node_modules'];

/**
 * A fresh worktree has no installed dependencies. When the repository has them, link them in so
 * the agent (or an integration check) can build and test; returns what it linked, which commits
 * must leave out (a symlink is no directory to git, so `node_modules/` rules would not).
 */
export function linkDependencies(repo: string, dir: string, names: readonly string[] = DEPENDENCY_FOLDERS): string[] {
  const linked: string[] = [];
  for (const name of names) {
    const source = path.join(repo, name);
    const target = path.join(dir, name);
    if (existsSync(source) && !entryExists(target)) {
      // `symlinkDirectories` may name a nested folder (packages/app/node_modules).
      mkdirSync(path.dirname(target), { recursive: true });
      symlinkSync(source, target, 'dir');
      linked.push(name);
    }
  }
  return linked;
}

/** The dependency folders linked into a worktree (by `linkDependencies`, on any earlier day): what no commit of orca's takes. */
export function linkedDependencies(dir: string): string[] {
  return DEPENDENCY_FOLDERS.filter((name) => {
    try {
      return lstatSync(path.join(dir, name)).isSymbolicLink();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
  });
}
