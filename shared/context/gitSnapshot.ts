import { gitAt } from '../git/git.js';

/**
 * The branch, HEAD and `git status` of the working folder at one moment: once at session start
 * for the dynamic part of the prompt, then each turn to see whether it changed since.
 */
export type GitSnapshot =
  | { kind: 'repo'; branch: string; head: string; status: string[] }
  | { kind: 'none'; reason: string };

/** At most this many status lines are shown; the rest are counted. */
export const MAX_STATUS_LINES = 30;

export async function readGitSnapshot(dir: string): Promise<GitSnapshot> {
  let out: string;
  try {
    out = await gitAt(dir).raw(['status', '--porcelain=v1', '--branch', '--untracked-files=normal']);
  } catch (error) {
    const message = error instanceof Error ? error.message.trim() : String(error);
    if (/not a git repository/i.test(message)) return { kind: 'none', reason: 'not a git repository' };
    return { kind: 'none', reason: `git status failed: ${message.split('\n')[0]}` };
  }
  const [first = '', ...status] = out.split('\n').filter((line) => line !== '');
  const branch = first.replace(/^## /, '').replace(/^No commits yet on /, '').split('...')[0]!.trim();
  if (first.startsWith('## No commits yet')) return { kind: 'repo', branch, head: '(no commits yet)', status };
  try {
    const head = (await gitAt(dir).raw(['rev-parse', '--short', 'HEAD'])).trim();
    return { kind: 'repo', branch, head, status };
  } catch (error) {
    const message = error instanceof Error ? error.message.trim() : String(error);
    return { kind: 'none', reason: `git rev-parse HEAD failed: ${message.split('\n')[0]}` };
  }
}

export function describeStatus(status: string[]): string {
  if (status.length === 0) return '(clean)';
  const shown = status.slice(0, MAX_STATUS_LINES).join('\n');
  const more = status.length - MAX_STATUS_LINES;
  return more > 0 ? `${shown}\n… and ${more} more` : shown;
}

export function sameStatus(a: GitSnapshot, b: GitSnapshot): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === 'none' || b.kind === 'none') return true;
  return a.branch === b.branch && a.head === b.head && a.status.join('\n') === b.status.join('\n');
}
