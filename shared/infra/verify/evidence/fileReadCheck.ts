import type { LineRange } from '../../../core/files/lineRanges.js';
import { type CommitView, shortSha } from './commitView.js';

/**
 * A file an Explore agent read, checked against the base commit: its hash is the one the host
 * took of the bytes the agent saw; it is verified when the base commit has that file with those
 * bytes (as stored, or as a checkout writes them with git's filters). Only verified entries are
 * handed to workers as inherited file state.
 */
export interface FileRead {
  path: string;
  hash: string;
  partial: boolean;
  seen?: LineRange[];
}

export interface CheckedFileRead extends FileRead {
  verified: boolean;
  reason?: string;
}

export async function checkFileRead(file: FileRead, view: CommitView): Promise<CheckedFileRead> {
  const at = `the base commit ${shortSha(view.commit)}`;
  const stored = view.file(file.path);
  if (!stored) return { ...file, verified: false, reason: `${file.path} is not a file of ${at}` };
  if (stored.hash === file.hash) return { ...file, verified: true };
  const checkedOut = await view.checkedOutHash(file.path);
  if (checkedOut === file.hash) return { ...file, verified: true };
  return {
    ...file,
    verified: false,
    reason: `the bytes read of ${file.path} (sha256 ${file.hash.slice(0, 12)}) are not its bytes at ${at} (sha256 ${(checkedOut ?? stored.hash).slice(0, 12)})`,
  };
}
