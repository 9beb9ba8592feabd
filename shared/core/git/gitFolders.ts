import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Where a worktree's git folders are, read from their files as git reads them (setup.c:
 * read_gitfile_gently, get_common_dir_noenv), without starting git. One reading for every caller:
 * the guard of git's own files, the ref files, the start state, git's safe invocation. A reading
 * looser than git's (a `gitdir:` on any line, spaces trimmed) would watch or trust another folder
 * than the one git uses.
 */

/**
 * The path a `.git` file's text names, as written: the text must begin `gitdir: `, and the rest of
 * it, its line ends dropped, is the path (absolute, or relative to the file's own folder).
 * Undefined for any other text.
 */
export function namedGitDir(text: string): string | undefined {
  if (!text.startsWith('gitdir: ')) return undefined;
  const named = text.slice('gitdir: '.length).replace(/[\r\n]+$/, '');
  return named === '' ? undefined : named;
}

/**
 * The worktree's own git folder at `root`, its top folder: `.git` itself when that is a folder,
 * else the folder its `.git` file names. Undefined when `root` has no `.git`, or a `.git` file that
 * names no folder.
 */
export function ownGitDir(root: string): string | undefined {
  const dotGit = path.join(root, '.git');
  let isFolder: boolean;
  try {
    isFolder = statSync(dotGit).isDirectory();
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
  if (isFolder) return dotGit;
  const named = namedGitDir(readFileSync(dotGit, 'utf8'));
  return named === undefined ? undefined : path.resolve(root, named);
}

/**
 * The folder the worktrees of `gitDir`'s repository share (objects, shared refs, config): the one
 * its `commondir` file names (relative to `gitDir`), else `gitDir` itself.
 */
export function gitCommonDir(gitDir: string): string {
  let text: string;
  try {
    text = readFileSync(path.join(gitDir, 'commondir'), 'utf8');
  } catch (error) {
    if (isMissing(error)) return gitDir;
    throw error;
  }
  const named = namedCommonDir(text);
  return named === undefined ? gitDir : path.resolve(gitDir, named);
}

/** The path a `commondir` file's text names (relative to its git folder, or absolute): the text, its line ends dropped. */
export function namedCommonDir(text: string): string | undefined {
  const named = text.replace(/[\r\n]+$/, '');
  return named === '' ? undefined : named;
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
