import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { gitAt } from '../../core/git/git.js';

/**
 * Where a run reads a project's own files (its slash commands and the files they reference):
 * at the run's base commit, the tree the agents work on, never whatever the checkout holds now.
 * The one seam for that: a loader of project settings that reads them from the base commit
 * (and sends them with the job) can stand in for `filesAtCommit`.
 */
export interface ProjectFiles {
  /** How the files are named in messages: `the base commit 1a2b3c4` or a folder. */
  readonly label: string;
  /** Every file under `folder` (relative to the root, `/`-separated), sorted. */
  list(folder: string): Promise<string[]>;
  /** A file's text, or undefined when there is no such file. */
  read(file: string): Promise<string | undefined>;
}

export function filesAtCommit(repo: string, commit: string): ProjectFiles {
  const git = gitAt(repo);
  return {
    label: `the base commit ${commit.slice(0, 12)}`,
    async list(folder) {
      const out = await git.raw(['ls-tree', '-r', '-z', '--name-only', commit, '--', folder]);
      return out.split('\0').filter(Boolean).sort();
    },
    async read(file) {
      const kind = (await git.raw(['cat-file', '-t', `${commit}:${file}`]).catch(() => '')).trim();
      if (kind !== 'blob') return undefined;
      return git.raw(['show', `${commit}:${file}`]);
    },
  };
}

/** A folder on this host (the user's `~/.claude`): read as it is now. */
export function filesInFolder(root: string): ProjectFiles {
  return {
    label: root,
    async list(folder) {
      const start = path.join(root, folder);
      if (!existsSync(start)) return [];
      const out: string[] = [];
      const walk = (dir: string) => {
        for (const entry of readdirSync(dir, { withFileTypes: true })) {
          const full = path.join(dir, entry.name);
          if (entry.isDirectory()) walk(full);
          else if (entry.isFile()) out.push(path.relative(root, full).split(path.sep).join('/'));
        }
      };
      walk(start);
      return out.sort();
    },
    async read(file) {
      const full = path.join(root, file);
      return existsSync(full) && statSync(full).isFile() ? readFileSync(full, 'utf8') : undefined;
    },
  };
}
