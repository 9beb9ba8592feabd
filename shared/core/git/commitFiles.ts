import { launch } from '../runtime/launcher.js';
import { gitAt, launchGit, whyGitFailed } from './git.js';

/**
 * Files of one commit read from git's objects, never from a working tree (which may have moved on,
 * or hold changes of its own): what the host checks an agent's claims about a commit against.
 */

/** Every file path in the commit's tree (blobs and symlinks; submodules are not files). */
export async function commitPaths(repo: string, commit: string): Promise<string[]> {
  const out = await gitAt(repo).raw(['ls-tree', '-r', '--name-only', '-z', commit]);
  return out.split('\0').filter(Boolean);
}

/**
 * The bytes of each path at `commit` as git stores them (no filters), with one `git cat-file
 * --batch` for all of them. A path that is not a file there (missing, a folder) maps to undefined.
 */
export function readCommitBlobs(repo: string, commit: string, paths: readonly string[]): Promise<Map<string, Buffer | undefined>> {
  const wanted = [...new Set(paths)].filter((file) => !/[\n\r]/.test(file) && file !== '');
  const found = new Map<string, Buffer | undefined>(paths.map((file) => [file, undefined]));
  if (wanted.length === 0) return Promise.resolve(found);
  const input = wanted.map((file) => `${commit}:${file}\n`).join('');
  return launchGit(repo, ['cat-file', '--batch'], { input, maxBuffer: 512 * 1024 * 1024 }).then((ran) => {
    if (ran.code !== 0) throw new Error(`git cat-file --batch failed in ${repo}: ${whyGitFailed(ran)}`);
    const out = ran.stdout;
    let at = 0;
    for (const file of wanted) {
      const end = out.indexOf(0x0a, at);
      if (end < 0) throw new Error(`git cat-file --batch in ${repo} stopped before ${file}`);
      const header = out.subarray(at, end).toString('utf8').split(' ');
      at = end + 1;
      if (header.length !== 3) continue; // `<name> missing` (or ambiguous): not in the commit
      const size = Number(header[2]);
      if (header[1] === 'blob') found.set(file, Buffer.from(out.subarray(at, at + size)));
      at += size + 1;
    }
    return found;
  });
}

/**
 * One file at `commit` as a checkout writes it (git's eol conversion and smudge filters applied):
 * what an agent reading a worktree of that commit saw, where it differs from the stored blob.
 */
export function readCheckedOutFile(repo: string, commit: string, file: string): Promise<Buffer> {
  return launch('git', ['cat-file', '--filters', `${commit}:${file}`], { cwd: repo, env: process.env, maxBuffer: 64 * 1024 * 1024 }).then(
    (ran) => {
      if (ran.code !== 0) throw new Error(`git cat-file --filters ${commit}:${file} failed: ${whyGitFailed(ran)}`);
      return ran.stdout;
    },
  );
}
