import path from 'node:path';
import type { ToolLedgerEntry } from '../../core/loop/toolLedger.js';
import type { Message, ToolResultBlock, ToolUseBlock } from '../../core/model/message.js';
import { readResultFile } from '../../core/tool/readResultData.js';
import { commandInput, pathInput, resultsKind, type ToolFacts } from '../../core/tool/toolFacts.js';

/**
 * The tool calls of a transcript, each joined with its result block and the host's ledger entry,
 * and what the host can tell about them from their tools' facts (what kind of result each is) and
 * structured data (a read's file and range, a command's exit code and log file). Compaction
 * decides from these, never from the model's prose.
 */
export interface ToolCall {
  id: string;
  name: string;
  /**
   * The definition the call ran with, from the ledger; undefined for a call never run (the
   * session was aborted first), which is then kept as it is.
   */
  tool?: ToolFacts;
  input: unknown;
  use: ToolUseBlock;
  /** Index in the message list of the assistant message holding the use. */
  useIndex: number;
  result?: ToolResultBlock;
  /** Index of the user message holding the result, or -1. */
  resultIndex: number;
  entry?: ToolLedgerEntry;
}

export function toolCallsIn(messages: readonly Message[], ledger: readonly ToolLedgerEntry[]): ToolCall[] {
  const entries = new Map(ledger.map((entry) => [entry.id, entry]));
  const calls: ToolCall[] = [];
  const byId = new Map<string, ToolCall>();
  messages.forEach((message, index) => {
    for (const block of message.content) {
      if (block.type === 'tool_use') {
        const call: ToolCall = {
          id: block.id,
          name: block.name,
          input: block.input,
          use: block,
          useIndex: index,
          resultIndex: -1,
          entry: entries.get(block.id),
        };
        if (call.entry) {
          call.input = call.entry.input;
          call.tool = call.entry.tool;
        }
        calls.push(call);
        byId.set(block.id, call);
      } else if (block.type === 'tool_result') {
        const call = byId.get(block.tool_use_id);
        if (call) {
          call.result = block;
          call.resultIndex = index;
        }
      }
    }
  });
  return calls;
}

export function failed(call: ToolCall): boolean {
  return call.entry?.isError ?? call.result?.is_error === true;
}

function field(value: unknown, key: string): unknown {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
}

/** The file a file tool's call named (for a read, the file its result names), absolute (relative paths taken from `root`). */
export function filePathOf(call: ToolCall, root: string): string | undefined {
  if (resultsKind(call.tool) === 'file-read') return readResultFile({ tool: call.tool, input: call.input, data: call.entry?.data }, root);
  const given = pathInput(call.tool, call.input);
  return given === undefined ? undefined : path.resolve(root, given);
}

/** How a file read went: the whole file, part of it, or the "unchanged since your earlier Read" stub. */
export function readView(call: ToolCall): 'full' | 'partial' | 'unchanged' | undefined {
  const data = call.entry?.data;
  if (field(data, 'type') === 'file_unchanged') return 'unchanged';
  const file = field(data, 'file');
  const start = field(file, 'startLine');
  const lines = field(file, 'numLines');
  const total = field(file, 'totalLines');
  if (typeof start === 'number' && typeof lines === 'number' && typeof total === 'number') {
    return start <= 1 && lines >= total ? 'full' : 'partial';
  }
  if (call.entry && !call.entry.isError) {
    const input = call.input;
    return field(input, 'offset') === undefined && field(input, 'limit') === undefined ? 'full' : 'partial';
  }
  return undefined;
}

export interface BashOutcome {
  command: string;
  exitCode: number | null;
  signal: string | null;
  /** Refused, timed out or aborted: it has no exit code of its own. */
  errored: boolean;
  outputFile?: string;
}

/** A shell command's run, from a call whose results are one (`command`); undefined for other calls. */
export function bashOutcome(call: ToolCall): BashOutcome | undefined {
  if (resultsKind(call.tool) !== 'command') return undefined;
  const command = commandInput(call.tool, call.input);
  if (command === undefined) return undefined;
  const data = call.entry?.data;
  const exitCode = field(data, 'exitCode');
  const signal = field(data, 'signal');
  const outputFile = field(data, 'outputFile');
  const timedOut = field(data, 'timedOut') === true;
  return {
    command,
    exitCode: typeof exitCode === 'number' ? exitCode : null,
    signal: typeof signal === 'string' ? signal : null,
    errored: failed(call) || timedOut || typeof exitCode !== 'number',
    outputFile: typeof outputFile === 'string' ? outputFile : undefined,
  };
}

/** A short one-line form of a call's input, for placeholders and summaries. */
export function describeInput(call: ToolCall, root: string, max = 160): string {
  const input = call.input;
  const file = field(input, 'file_path');
  const command = field(input, 'command');
  const pattern = field(input, 'pattern');
  let text: string;
  if (typeof command === 'string') text = `\`${command.replace(/\s+/g, ' ').trim()}\``;
  else if (typeof file === 'string') {
    const abs = path.resolve(root, file);
    const rel = path.relative(root, abs);
    text = rel.startsWith('..') || path.isAbsolute(rel) ? abs : rel;
    const offset = field(input, 'offset');
    const limit = field(input, 'limit');
    if (offset !== undefined || limit !== undefined) text += ` (offset ${offset ?? 1}, limit ${limit ?? 'default'})`;
  } else if (typeof pattern === 'string') {
    const where = field(input, 'path');
    text = JSON.stringify(pattern) + (typeof where === 'string' ? ` in ${where}` : '');
  } else text = JSON.stringify(input ?? {});
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
