import type { PermissionMode } from '../../../core/tool/permissionMode.js';
import { analyzeBash, isHarmlessWriteTarget } from './bashAnalysis.js';
import { isReadOnlyCommand } from './readOnlyCommands.js';
import type { ShellCommand } from './shellTypes.js';

/**
 * Whether a Bash command only reads: it parses, every command in it (in lists, pipes, subshells,
 * substitutions) is on the read-only list, and no redirection writes a file. `ls && rm -rf x`
 * and `echo $(rm -rf x)` are not; `git log | head -5` and `ls 2>/dev/null` are.
 */
export function isReadOnlyBash(command: string): boolean {
  const analysis = analyzeBash(command);
  if (!analysis.ok) return false;
  return (
    analysis.writes.every((write) => !write.target.dynamic && isHarmlessWriteTarget(write.target.value)) &&
    analysis.commands.every(isReadOnlyShellCommand)
  );
}

export function isReadOnlyShellCommand(command: ShellCommand): boolean {
  return !command.unclear && !command.elevated && isReadOnlyCommand(command.argv);
}

/**
 * The mode a Bash call needs: read-only when it only reads, otherwise full-access, because a
 * shell command can do anything the user can. For the Bash tool's `level`.
 */
export function bashLevel(command: string): PermissionMode {
  return isReadOnlyBash(command) ? 'read-only' : 'full-access';
}
