/**
 * Whether nothing but the agent's own calls can write its worktree, so that a look at it still
 * tells the tree until the next call: the Report's stop check then takes the git status of the
 * look after the last call that may have written (WorktreeWatch.check, `sinceLastLook`), and the
 * owned commit takes its list of changed files from the Report's look (WorktreeWatch.lastChanges)
 * instead of asking git again: two `git status` of the whole worktree fewer on the way from the
 * last call to the job's result. It holds when:
 *
 * - no call that may write ran after the look (each is looked after; a read-only one cannot
 *   write, and any call drops the Report's look for the commit: OwnedPathsGuard.reportChanges),
 *   and the look put nothing back (WorktreeWatch keeps no look that did);
 * - commands ran in bwrap (`pidNamespace`): each Bash command in its own pid namespace, with
 *   `--die-with-parent`, so nothing it started (a `&` job, `setsid`, a double fork, `nohup`)
 *   outlives the call. Not by timing: bwrap exits before its namespace's init, which the kernel
 *   lets finish exiting only once every process of the namespace is gone, and the call returns
 *   only after that init has (bwrap names it on `--info-fd`: ProcessGroup.kill, namespaceInit.ts),
 *   or fails saying something may still run (tests/permissions/reportLook.test.ts runs such
 *   writers, one deaf to SIGTERM, with no cgroup to end them). sandbox-exec has no such
 *   namespace, and unsandboxed a `setsid` escapes the process group where no cgroup holds it;
 * - no hook is configured at all: a PreToolUse, Stop or SessionEnd hook runs between the looks,
 *   sandboxed or not (a sandboxed one may still write the worktree);
 * - no MCP server and no language server ran in the session: both are processes beside the
 *   agent's calls, which live until the session closes;
 * - the agent is orca's own loop: an external agent's process runs beside its calls.
 *
 * Whatever the list, every guarded entry, link and git folder is read afresh at the Report's look.
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
