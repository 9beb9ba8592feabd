import path from 'node:path';
import { splitLines } from '../../../core/files/numberedLines.js';
import { hashBytes } from '../../../core/files/readFileState.js';
import { decodeText, normalizeLineEndings } from '../../../core/files/textCodec.js';
import { isInside } from '../../../core/files/workspace.js';
import { commitPaths, readCheckedOutFile, readCommitBlobs } from '../../../core/git/commitFiles.js';

/**
 * One commit as the host checks agents' citations against it: its file list and the files asked
 * for, read from git's objects (commitFiles.ts), never from a working tree. Explore findings are
 * checked against the run's base, Verification problems against the integration head.
 */
export interface CommitView {
  repo: string;
  commit: string;
  /** Every file path in the commit. */
  paths: ReadonlySet<string>;
  /** The file at `file` (repo-relative), or undefined when the commit has no such file. */
  file(file: string): CommitFile | undefined;
  /** Whether `dir` is a folder of the commit. */
  isFolder(dir: string): boolean;
  /** The sha256 of the file as a checkout writes it (filters applied), when it differs from the blob's. */
  checkedOutHash(file: string): Promise<string | undefined>;
}

export interface CommitFile {
  /** sha256 of the stored blob. */
  hash: string;
  /** Its lines (LF-normalised), or why it has none (binary, not UTF-8). */
  lines: string[] | { problem: string };
}

export async function loadCommitView(repo: string, commit: string, wanted: Iterable<string>): Promise<CommitView> {
  const paths = new Set(await commitPaths(repo, commit));
  const folders = new Set<string>();
  for (const file of paths) for (let dir = path.posix.dirname(file); dir !== '.'; dir = path.posix.dirname(dir)) folders.add(dir);
  const blobs = await readCommitBlobs(
    repo,
    commit,
    [...new Set(wanted)].filter((file) => paths.has(file)),
  );
  const files = new Map<string, CommitFile>();
  for (const [file, bytes] of blobs) {
    if (!bytes) continue;
    const decoded = decodeText(bytes);
    files.set(file, {
      hash: hashBytes(bytes),
      lines: decoded.ok ? splitLines(normalizeLineEndings(decoded.text)) : { problem: `${file} ${decoded.problem}` },
    });
  }
  return {
    repo,
    commit,
    paths,
    file: (file) => files.get(file),
    isFolder: (dir) => folders.has(dir.replace(/\/+$/, '')),
    async checkedOutHash(file) {
      if (!paths.has(file)) return undefined;
      const hash = hashBytes(await readCheckedOutFile(repo, commit, file));
      return hash === files.get(file)?.hash ? undefined : hash;
    },
  };
}

/**
 * A path an agent cited, as a path of the repository: relative as it is (`./` dropped), or
 * absolute inside one of `roots` (its worktree, the repository). Undefined, with the reason, for
 * a path outside them.
 */
export function repoPath(cited: string, roots: readonly string[]): { path: string } | { problem: string } {
  let file = cited.trim();
  if (path.isAbsolute(file)) {
    const root = roots.find((dir) => isInside(file, dir));
    if (!root) return { problem: `${cited} is an absolute path outside the repository` };
    file = path.relative(root, file).split(path.sep).join('/');
  }
  file = path.posix.normalize(file.replace(/\\/g, '/')).replace(/^(\.\/)+/, '');
  if (file === '..' || file.startsWith('../')) return { problem: `${cited} is outside the repository` };
  return { path: file };
}

/** `abc123def456`: a commit as the reasons name it. */
export function shortSha(commit: string): string {
  return commit.slice(0, 12);
}
