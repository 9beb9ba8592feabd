import { type CommitView, repoPath, shortSha } from './commitView.js';

/**
 * A problem a Verification agent reported, checked against the merged tree (the integration head,
 * from git's objects): a problem in a file the tree does not have (deleted by the change, an
 * absolute path elsewhere) or at a line past its end is kept, marked unverified with the reason,
 * never dropped: a deleted file can be the very problem.
 */
export interface Problem {
  file: string;
  line?: number;
  what: string;
}

export interface CheckedProblem extends Problem {
  verified: boolean;
  reason?: string;
}

export function checkProblem(problem: Problem, view: CommitView, roots: readonly string[]): CheckedProblem {
  const at = `the merged tree ${shortSha(view.commit)}`;
  const where = repoPath(problem.file, roots);
  if ('problem' in where) return { ...problem, verified: false, reason: where.problem };
  const stored = view.file(where.path);
  if (!stored) {
    const folder = view.isFolder(where.path);
    return { ...problem, verified: false, reason: `${where.path} ${folder ? 'is a folder' : 'does not exist'} in ${at}` };
  }
  if (problem.line !== undefined && Array.isArray(stored.lines) && problem.line > stored.lines.length) {
    return {
      ...problem,
      verified: false,
      reason: `${where.path} has ${stored.lines.length} line${stored.lines.length === 1 ? '' : 's'} in ${at}; line ${problem.line} is past its end`,
    };
  }
  return { ...problem, verified: true };
}
