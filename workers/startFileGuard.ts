import { changedStartFiles } from '../shared/core/git/worktreeStartState.js';
import { guardedReason } from '../shared/policy/permissions/guardedPaths.js';
import type { JobWorkspace } from './workspace/jobWorkspace.js';

/**
 * The guarded files orca put in the worktree (a `.env.test` copied by `.worktreeinclude`,
 * `.env.orca`) that the agent changed or removed: the agent may read them, not change them. Said
 * as one line naming each, or undefined when all are as orca left them.
 */
export function guardedStartFileChanges(workspace: JobWorkspace): string | undefined {
  if (workspace.kind === 'view') return undefined;
  const changed = changedStartFiles(workspace.dir).filter((entry) => guardedReason(entry.path) !== undefined);
  if (changed.length === 0) return undefined;
  // Each reason names its file (".env.test may hold secrets (.env files are guarded)").
  return `the agent changed files orca put in its worktree, which are guarded: ${changed.map((entry) => guardedReason(entry.path)).join('; ')}`;
}
