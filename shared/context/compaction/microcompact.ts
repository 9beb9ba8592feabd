import { resultsKind, type ToolResults } from '../../core/tool/toolFacts.js';
import { resultFileOf } from './resultArchive.js';
import { bashOutcome, describeInput, failed, type ToolCall } from './toolCalls.js';

/**
 * Level 3, microcompact: the results of old calls whose results can be had again (file reads and
 * changes, output kept in a file, command runs: Read, Edit, Write, Grep, Glob, Bash), all but the
 * most recent `keep` of them, become a one-line placeholder that keeps the tool, its input, how it
 * ended and a path holding the whole result. The tool_use stays, so the pairing the API requires
 * and the record of what was done both survive; only the bulk goes. (The compaction ladder leaves
 * alone a result already shorter than its placeholder.)
 */
const CLEARABLE: ReadonlySet<ToolResults['kind']> = new Set(['file-read', 'file-change', 'output', 'command']);

export function findClearable(calls: readonly ToolCall[], options: { keep: number; skip: (call: ToolCall) => boolean }): ToolCall[] {
  const eligible = calls.filter((call) => isClearable(call) && call.result !== undefined && !options.skip(call));
  return options.keep > 0 ? eligible.slice(0, -options.keep) : eligible;
}

export function placeholderFor(call: ToolCall, root: string, sessionDir: string): string {
  const what = `${call.name} ${describeInput(call, root)}`;
  const status = failed(call) ? 'failed' : 'succeeded';
  const kind = resultsKind(call.tool);
  if (kind === 'file-read') {
    return `[Old result cleared from the context to save space: ${what} ${status}. Read the file again if you need it; it may have changed since.]`;
  }
  if (kind === 'file-change') {
    return `[Old result cleared from the context to save space: ${what} ${status}.]`;
  }
  const bash = bashOutcome(call);
  const ended = bash
    ? bash.signal
      ? ` → killed by ${bash.signal}`
      : bash.exitCode !== null && !bash.errored
        ? ` → exit code ${bash.exitCode}`
        : ` → ${status}`
    : ` ${status}`;
  const file = resultFileOf(call, sessionDir);
  return `[Old result cleared from the context to save space: ${what}${ended}. The whole result is in ${file}: Read or Grep it if you need it.]`;
}

function isClearable(call: ToolCall): boolean {
  const kind = resultsKind(call.tool);
  return kind !== undefined && CLEARABLE.has(kind);
}
