import path from 'node:path';
import { pathInput, resultsKind, type ToolFacts } from './toolFacts.js';

/**
 * What a tool whose results are file reads (Read) puts in `ToolOutput.data`. Typed here, below
 * the tool, because the context layer reads it (conditional rules, compaction) and tools/ already
 * imports context/.
 */
export type ReadResultData =
  | { type: 'text'; file: { filePath: string; content: string; numLines: number; startLine: number; totalLines: number } }
  | { type: 'notebook'; file: { filePath: string; cells: unknown[] } }
  | { type: 'file_unchanged'; file: { filePath: string } };

/** A call as the host recorded it: a ledger entry, or the call that just ran; `tool` is the definition it ran with. */
export interface RecordedCall {
  tool?: ToolFacts;
  input: unknown;
  data?: unknown;
}

/**
 * The file a file-read call is about, absolute: the path its result names, else (a call without
 * result data, such as a failed one) the path it was given, taken from `root`. Undefined for
 * other tools. The data is checked, not cast: the ledger holds it as `unknown`.
 */
export function readResultFile(call: RecordedCall, root: string): string | undefined {
  if (resultsKind(call.tool) !== 'file-read') return undefined;
  const { data } = call;
  if (typeof data === 'object' && data !== null && 'file' in data) {
    const file = data.file;
    if (typeof file === 'object' && file !== null && 'filePath' in file && typeof file.filePath === 'string') return file.filePath;
  }
  const given = pathInput(call.tool, call.input);
  return given === undefined ? undefined : path.resolve(root, given);
}
