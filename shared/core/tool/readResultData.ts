import path from 'node:path';

/**
 * What Read puts in `ToolOutput.data`. Typed here, below the tool, because the context layer
 * reads it (conditional rules, compaction) and tools/ already imports context/.
 */
export type ReadResultData =
  | { type: 'text'; file: { filePath: string; content: string; numLines: number; startLine: number; totalLines: number } }
  | { type: 'notebook'; file: { filePath: string; cells: unknown[] } }
  | { type: 'file_unchanged'; file: { filePath: string } };

/** A call as the host recorded it: a ledger entry, or the call that just ran. */
export interface RecordedCall {
  name: string;
  input: unknown;
  data?: unknown;
}

/**
 * The file a Read call is about, absolute: the path its result names, else (a call without
 * result data, such as a failed one) the path it was given, taken from `root`. Undefined for
 * other tools. The data is checked, not cast: the ledger holds it as `unknown`, and any tool may
 * be registered under the name.
 */
export function readResultFile(call: RecordedCall, root: string): string | undefined {
  if (call.name !== 'Read') return undefined;
  const { data, input } = call;
  if (typeof data === 'object' && data !== null && 'file' in data) {
    const file = data.file;
    if (typeof file === 'object' && file !== null && 'filePath' in file && typeof file.filePath === 'string') return file.filePath;
  }
  const given = typeof input === 'object' && input !== null && 'file_path' in input ? input.file_path : undefined;
  return typeof given === 'string' ? path.resolve(root, given) : undefined;
}
