/**
 * Whether the owned commit may take its list of changed files from the look the Report's stop
 * check took (WorktreeWatch.lastChanges) instead of asking git again: one `git status` of the
 * whole worktree fewer on the way from the Report to the job's result. It may when nothing can
 * have written in the worktree between that look and the commit:
 *
 * - no call ran after the look (the guard drops it at the next call: OwnedPathsGuard.reportChanges),
 *   and the look put nothing back (WorktreeWatch keeps no look that did);
 * - commands ran in bwrap (`pidNamespace`): each Bash command in its own pid namespace, with
 *   `--die-with-parent`, so nothing it started (a `&` job, `setsid`, a double fork, `nohup`)
 *   outlives the call: the namespace's init is SIGKILLed as bwrap exits, before its exit is seen,
 *   and takes every process of the namespace with it, whole look-and-Report round trips before
 *   the Report's look (tests/permissions/reportLook.test.ts runs such a writer). sandbox-exec has
 *   no such namespace, and unsandboxed a `setsid` escapes the process group where no cgroup holds it;
 * - no hook is configured at all: a Stop or SessionEnd hook runs after the look, sandboxed or not
 *   (a sandboxed one may still write the worktree);
 * - no MCP server and no language server ran in the session: both are processes beside the
 *   agent's calls, which live until the session closes, after the look;
 * - the agent is orca's own loop: an external agent's process runs beside its calls.
 *
 * And should a process still write after the look, the commit stays sound: it takes only the
 * listed files the task may commit (OwnedPaths.committable), adds them by literal path, and the
 * branch's whole change is checked again afterwards (jobCommit.ts); a file missed is left on disk,
 * uncommitted, as a write after the commit's own look always was.
 */
export function reportLookHolds(facts: {
  pidNamespace: boolean;
  hooks: boolean;
  mcpServers: boolean;
  languageServers: boolean;
  externalAgent: boolean;
}): boolean {
  return facts.pidNamespace && !facts.hooks && !facts.mcpServers && !facts.languageServers && !facts.externalAgent;
}
