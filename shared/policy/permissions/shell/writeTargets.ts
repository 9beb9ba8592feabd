import path from 'node:path';
import { COPY_COMMANDS } from './copyCommandWrites.js';
import { FILE_COMMANDS } from './fileCommandWrites.js';
import { FOLDER_COMMANDS } from './folderCommandWrites.js';
import type { ShellCommand } from './shellTypes.js';
import { type CommandWrites, WriteCollector, type WriteReader } from './writeCollector.js';

const READERS: Record<string, WriteReader> = { ...FILE_COMMANDS, ...COPY_COMMANDS, ...FOLDER_COMMANDS };

/**
 * The paths a simple command writes, read from its words for the common file-writing commands
 * (cp, mv, touch, rm, sed -i, tar -x, git -C, …). Without the sandbox these are what keeps a
 * command from writing outside the workspace, so anything that cannot be told from the words
 * (`cp x $DEST`, an option we do not know, operands xargs reads from its input) is reported as
 * unknown rather than guessed. Commands that write where they run (npm, node, python) are
 * judged by the folder they run in instead.
 */
export function commandWrites(command: ShellCommand): CommandWrites {
  const out = new WriteCollector(command);
  const name = command.argv[0];
  // A command that cannot be identified already needs an allow rule naming it.
  if (!name || name.dynamic || command.unclear) return out.result();
  // `/bin/cp` is cp.
  const program = path.posix.basename(name.value);
  const reader = Object.hasOwn(READERS, program) ? READERS[program] : undefined;
  reader?.(command.argv.slice(1), out);
  return out.result();
}
