import { randomBytes } from 'node:crypto';
import {
  accessSync,
  chmodSync,
  closeSync,
  constants,
  fsyncSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  type Stats,
  statSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { ToolError } from '../boundary/toolError.js';

/**
 * Replaces a file's bytes all at once: they go to a temporary file beside it, are flushed, and the
 * temporary file is renamed over the target. A crash, a full disk or a kill midway leaves the old
 * file or the new one, never half of each. The file's permission bits are kept. Synchronous, so a
 * caller's staleness check and this write have no await between them. Returns the new file's stats.
 * A failure (no permission, a full disk, a parent that is a file) is a ToolError naming `label`.
 */
export function writeFileAtomic(target: string, bytes: Uint8Array, options: { createParents?: boolean; label?: string } = {}): Stats {
  try {
    return replaceFile(target, bytes, options.createParents ?? false);
  } catch (error) {
    // Node's message names the temporary file; keep only the code and its meaning.
    const reason = error instanceof Error ? error.message.split(', ')[0] : String(error);
    throw new ToolError(`Could not write ${options.label ?? target} (${reason}); it was left as it was.`);
  }
}

function replaceFile(target: string, bytes: Uint8Array, createParents: boolean): Stats {
  const dir = path.dirname(target);
  if (createParents) mkdirSync(dir, { recursive: true });
  const mode = statSync(target, { throwIfNoEntry: false })?.mode;
  // A rename would replace even a read-only file; refuse what a plain write would refuse.
  if (mode !== undefined) accessSync(target, constants.W_OK);
  const temp = path.join(dir, `.${path.basename(target)}.orca-${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
  let fd: number | undefined;
  try {
    fd = openSync(temp, 'wx', 0o666);
    for (let written = 0; written < bytes.length; ) written += writeSync(fd, bytes, written);
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    // openSync's mode is masked by the umask; an existing file's own bits are copied exactly.
    if (mode !== undefined) chmodSync(temp, mode & 0o7777);
    renameSync(temp, target);
  } catch (error) {
    if (fd !== undefined) closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  return statSync(target);
}
