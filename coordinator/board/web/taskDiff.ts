import { gitAt } from '../../../shared/core/git/git.js';

/** A diff bigger than this is cut: the page is for reading, the branch has the rest. */
const DIFF_MAX = 200 * 1024;

export interface TaskDiff {
  base: string;
  commit: string;
  stat: string;
  text: string;
  cut: boolean;
}

/** What a task changed: `git diff base..commit` in the repository that holds its commit. */
export async function taskDiff(repo: string, base: string, commit: string): Promise<TaskDiff> {
  const git = gitAt(repo);
  const stat = await git.raw(['diff', '--stat', `${base}..${commit}`]);
  const text = await git.raw(['diff', '--no-color', '--no-ext-diff', `${base}..${commit}`]);
  const cut = text.length > DIFF_MAX;
  return { base, commit, stat, text: cut ? text.slice(0, DIFF_MAX) : text, cut };
}
