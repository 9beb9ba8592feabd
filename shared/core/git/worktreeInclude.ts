import { copyFileSync, type Dirent, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ignore from 'ignore';
import { gitAt } from './git.js';

/** The file naming, in gitignore syntax, which of the checkout's ignored files each new worktree gets (Claude Code's). */
export const WORKTREE_INCLUDE = '.worktreeinclude';

/**
 * Copies into a new worktree the files of the user's checkout that `.worktreeinclude` names and git
 * ignores (a tracked file is in the worktree already): a `.env.test`, a local config. Folders in
 * `skip` (the ones linked in instead, node_modules) are not searched. Returns the copied files,
 * relative to the worktree, forward slashes; none without a `.worktreeinclude`.
 */
export async function copyWorktreeIncludes(checkout: string, dir: string, skip: readonly string[] = []): Promise<string[]> {
  const listFile = path.join(checkout, WORKTREE_INCLUDE);
  if (!existsSync(listFile)) return [];
  const wanted = ignore().add(readFileSync(listFile, 'utf8'));
  // Ignored folders come as one entry each (`--directory`): a node_modules is not listed file by file.
  const out = await gitAt(checkout).raw(['ls-files', '--others', '--ignored', '--exclude-standard', '--directory', '-z']);
  const skipped = new Set(skip.map((name) => name.replace(/\/+$/, '')));
  // git may list a folder and one inside it (`config/`, `config/local/`): each file is copied once.
  const copied = new Set<string>();
  for (const entry of out.split('\0').filter(Boolean)) {
    if (entry.endsWith('/')) {
      const folder = entry.slice(0, -1);
      if (skipped.has(folder) || path.basename(folder) === '.git') continue;
      for (const file of filesUnder(checkout, folder, skipped)) if (wanted.ignores(file)) copied.add(file);
    } else if (wanted.ignores(entry)) copied.add(entry);
  }
  for (const file of copied) {
    const target = path.join(dir, file);
    mkdirSync(path.dirname(target), { recursive: true });
    copyFileSync(path.join(checkout, file), target);
  }
  return [...copied];
}

/** The files (not links, not folders) under `folder` of `root`, relative to `root`. */
function filesUnder(root: string, folder: string, skipped: Set<string>): string[] {
  const found: string[] = [];
  const walk = (relative: string) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(path.join(root, relative), { withFileTypes: true });
    } catch (error) {
      throw new Error(`could not read ${path.join(root, relative)} for ${WORKTREE_INCLUDE}: ${(error as Error).message}`);
    }
    for (const entry of entries) {
      const child = `${relative}/${entry.name}`;
      if (entry.isDirectory() && !skipped.has(child) && entry.name !== '.git') walk(child);
      else if (entry.isFile()) found.push(child);
    }
  };
  walk(folder);
  return found;
}
