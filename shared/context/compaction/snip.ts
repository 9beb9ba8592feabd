import { estimateBlockTokens } from '../../core/model/tokenEstimate.js';
import { resultsKind } from '../../core/tool/toolFacts.js';
import { failed, filePathOf, readView, type ToolCall } from './toolCalls.js';

/**
 * Level 2, snip: drop from the view the exchanges that later ones superseded, use and result
 * together (the API needs every tool_use paired):
 * - a file read (Read) of a file that a later read showed whole (a partial read, or an older
 *   whole read since overtaken by edits): the later one is the current view of the file;
 * - a read answered with the "unchanged since your earlier Read" stub: it adds nothing;
 * - a file read or change (Read, Edit, Write) that failed and was later retried on the same file
 *   by the same tool with success.
 * Nothing the model has not yet seen (the newest message) is dropped. Command runs (Bash) are
 * never snipped: failed checks are evidence.
 */

export interface SnipCandidate {
  call: ToolCall;
  reason: string;
}

export function findSnippable(calls: readonly ToolCall[], root: string, isProtected: (call: ToolCall) => boolean): SnipCandidate[] {
  const out: SnipCandidate[] = [];
  for (const [index, call] of calls.entries()) {
    if (!call.result || isProtected(call)) continue;
    const later = calls.slice(index + 1);
    const file = filePathOf(call, root);
    const kind = resultsKind(call.tool);
    if (kind === 'file-read' && !failed(call)) {
      if (readView(call) === 'unchanged') {
        out.push({ call, reason: 'an "unchanged" stub' });
        continue;
      }
      const whole = later.find(
        (next) => resultsKind(next.tool) === 'file-read' && !failed(next) && readView(next) === 'full' && filePathOf(next, root) === file,
      );
      if (whole) out.push({ call, reason: `superseded by a later whole Read of ${file}` });
      continue;
    }
    if ((kind === 'file-read' || kind === 'file-change') && failed(call) && file !== undefined) {
      const retried = later.find((next) => next.name === call.name && !failed(next) && filePathOf(next, root) === file);
      if (retried) out.push({ call, reason: `a failed ${call.name} of ${file}, later done` });
    }
  }
  return out;
}

/** Tokens a call takes in the view: its use and its result. */
export function callTokens(call: ToolCall): number {
  return estimateBlockTokens(call.use) + (call.result ? estimateBlockTokens(call.result) : 0);
}
