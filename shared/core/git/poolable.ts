import type { OrcaProjectConfig } from './orcaProjectConfig.js';

/**
 * Why a run's repository gets no pool of ready worktrees (git/worktreePool.ts), or undefined
 * when it does. Asked alike by the coordinator (warming at the run's start) and the workers.
 */
export function whyNoPool(input: { project: OrcaProjectConfig; worktreeCreateHook: boolean; remote: boolean }): string | undefined {
  // orca.json's setup runs with the job's own leased ports and ids (.env.orca, ORCA_TASK_ID),
  // sandboxed as the job's role says, and what it makes joins the job's start state: made ahead,
  // a pooled worktree would carry another job's ports and identity. Such worktrees start cold.
  if (input.project.setup.length > 0) return 'orca.json names setup commands, which depend on the job (its ports, its task)';
  // A sparse checkout's files are chosen from the task's owned paths and checks.
  if (input.project.sparsePaths) return "orca.json's sparsePaths choose each task's files";
  if (input.worktreeCreateHook) return 'a WorktreeCreate hook makes the worktrees';
  // A remote's clone is on hosts that never see the run end: its pool would stay until orca clean.
  if (input.remote) return 'the run reaches its workers over git (--share)';
  return undefined;
}
