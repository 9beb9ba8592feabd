import { existsSync, lstatSync, mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { entryExists } from '../files/entryExists.js';
import { commitPackageFiles } from './commitPackageFiles.js';
import { gitAt } from './git.js';
import { linkNodeModules } from './nodeModulesLinks.js';

/** Installed-dependency folders a worktree borrows from its repository rather than reinstalling (orca.json's `symlinkDirectories` may name others). */
const DEPENDENCY_FOLDERS = ['node_modules'];

/**
 * A fresh worktree has no installed dependencies. When the repository has them, link them in so
 * the agent (or an integration check) can build and test; returns what it linked (relative
 * paths), which commits must leave out. A `node_modules` is made of links entry by entry
 * (./nodeModulesLinks.ts): workspace packages resolve to the worktree's own. With `node_modules`
 * named (the default), so is each workspace package's own `node_modules` (beside a package.json
 * the repository tracks), as pnpm installs them.
 */
export async function linkDependencies(
  checkout: string,
  dir: string,
  names: readonly string[] = DEPENDENCY_FOLDERS,
  /** Set when the worktree's index is exactly this commit's tree (just made, or checked clean, at it): its listing is read from the commit. */
  at?: { repo: string; commit: string },
): Promise<string[]> {
  const folders = names.includes('node_modules') ? [...names, ...(await packageDependencyFolders(dir, at))] : [...names];
  const linked: string[] = [];
  for (const name of new Set(folders)) {
    const source = path.join(checkout, name);
    const target = path.join(dir, name);
    if (!existsSync(source) || entryExists(target)) continue;
    // `symlinkDirectories` may name a nested folder (packages/app/node_modules).
    mkdirSync(path.dirname(target), { recursive: true });
    if (path.basename(name) === 'node_modules') linkNodeModules(source, target, { checkout, worktree: dir });
    else symlinkSync(source, target, 'dir');
    linked.push(name);
  }
  return linked;
}

/** `node_modules` beside each package.json the worktree tracks below its root (a workspace package's). */
async function packageDependencyFolders(dir: string, at?: { repo: string; commit: string }): Promise<string[]> {
  const listed = at
    ? await commitPackageFiles(at.repo, at.commit)
    : (await gitAt(dir).raw(['ls-files', '-z', '--', ':(glob)**/package.json'])).split('\0');
  return listed
    .filter((file) => file.includes('/') && !file.split('/').includes('node_modules'))
    .map((file) => path.posix.join(path.posix.dirname(file), 'node_modules'));
}

/** The dependency folders linked into a worktree as one link (as orca did before it linked `node_modules` entry by entry): what no commit of orca's takes. */
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
