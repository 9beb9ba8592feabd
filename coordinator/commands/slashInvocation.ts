/**
 * A task that starts with a command name: `/fix-issue 123`, `/frontend:component Button`. Apart
 * from slashTask.ts so that `orca run` can tell a slash task without loading what expands one
 * (the command catalog and the tools' catalog): most runs name none, and load it never.
 */
export const INVOCATION = /^\/([A-Za-z0-9_.-]+(?::[A-Za-z0-9_.-]+)*)(?:\s+([\s\S]*))?$/;

export function isSlashInvocation(task: string): boolean {
  return INVOCATION.test(task.trim());
}
