import { runGit } from '../../shared/core/git/git.js';

/** What `git merge-tree --write-tree` made of two commits: the merged tree, or the conflict. */
export type TreeMerge =
  | { kind: 'clean'; tree: string }
  | { kind: 'conflict'; files: string[]; detail: string }
  /** This git has no `merge-tree --write-tree` (before 2.38): the caller merges in a worktree instead. */
  | { kind: 'unsupported' };

/**
 * Merges `theirs` into `ours` from the repository's objects alone (`git merge-tree --write-tree`,
 * the same merge machinery as `git merge`, ort): no index, no worktree, no `git stash create`, no
 * refresh of every tracked file's stat. On a large checkout that is most of a `git merge`'s time,
 * and the coordinator merges one task at a time. A failure that is neither a conflict nor an
 * old git is thrown, with git's words.
 */
export async function mergeTrees(cwd: string, ours: string, theirs: string): Promise<TreeMerge> {
  const merged = await runGit(cwd, ['merge-tree', '--write-tree', '-z', '--name-only', ours, theirs]);
  // 129 is git's usage error: an option it does not know.
  if (merged.code === 129) return { kind: 'unsupported' };
  if (merged.code !== 0 && merged.code !== 1) {
    throw new Error(
      `git merge-tree of ${theirs} into ${ours} failed (exit ${merged.code}): ${merged.stderr.trim() || merged.stdout.trim()}`,
    );
  }
  const fields = merged.stdout.split('\0');
  const tree = fields[0] ?? '';
  if (!/^[0-9a-f]{40,64}$/.test(tree))
    throw new Error(`git merge-tree of ${theirs} into ${ours} gave no tree: ${merged.stdout.slice(0, 200)}`);
  if (merged.code === 0) return { kind: 'clean', tree };
  const { files, messages } = conflictSections(fields.slice(1));
  return { kind: 'conflict', files, detail: messages.join('\n') };
}

/**
 * The conflicted files (`--name-only`: each once), then, after an empty field, the messages:
 * records of `<count> NUL <path>… NUL <type> NUL <message> NUL` (git-merge-tree(1), "-z").
 */
function conflictSections(fields: readonly string[]): { files: string[]; messages: string[] } {
  const files: string[] = [];
  let index = 0;
  for (; index < fields.length && fields[index] !== ''; index += 1) files.push(fields[index]!);
  index += 1;
  const messages: string[] = [];
  while (index < fields.length && fields[index] !== '') {
    const count = Number(fields[index]);
    if (!Number.isInteger(count) || count < 0) break;
    const message = fields[index + count + 2];
    if (message !== undefined) messages.push(message.trimEnd());
    index += count + 3;
  }
  return { files, messages };
}
