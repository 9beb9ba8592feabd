import type { Message } from '../../core/model/message.js';
import { resultsKind } from '../../core/tool/toolFacts.js';
import { isCheckCommand, normalizeCommand } from '../../infra/verify/evidence/checkCommand.js';
import { bashOutcome, describeInput, failed, type ToolCall } from './toolCalls.js';

/**
 * Level 4, collapse: the VIEW folds finished stretches of work into one line each; the stored
 * transcript keeps them whole. A stretch is finished when:
 * - task: a change to the task list (TaskUpdate) set a task `in_progress` and a later one set the
 *   same task `completed` (both succeeded);
 * - fixed check: a check command (verify/checkCommand.ts) failed and a later run of the same command
 *   passed (exit 0): the failure, the fixes and the passing run become one line.
 * A span runs from the assistant message of its first call to the user message holding its last
 * result: whole exchanges, so no tool_use loses its result. Spans that the model has not seen the
 * end of, that overlap a span already folded, or that contain a call whose result is instructions
 * (a Skill call: they must stay in view) are left alone. The outermost span wins when spans nest.
 */
export interface SpanCandidate {
  startIndex: number;
  endIndex: number;
  label: string;
}

export function findCollapsibleSpans(
  messages: readonly Message[],
  calls: readonly ToolCall[],
  options: { isFolded: (index: number) => boolean },
): SpanCandidate[] {
  const candidates: SpanCandidate[] = [];
  const lastSeen = messages.length - 2;
  calls.forEach((call, index) => {
    const later = calls.slice(index + 1);
    if (isTaskChange(call) && !failed(call) && statusOf(call) === 'in_progress') {
      const id = taskIdOf(call);
      const done = later.find((next) => isTaskChange(next) && !failed(next) && taskIdOf(next) === id && statusOf(next) === 'completed');
      if (done)
        candidates.push({
          startIndex: call.useIndex,
          endIndex: done.resultIndex,
          label: `task ${id} went in_progress at turn ${turnOf(call)} and was completed at turn ${turnOf(done)}`,
        });
      return;
    }
    const bash = bashOutcome(call);
    if (bash && isCheckCommand(bash.command) && !(bash.exitCode === 0 && !bash.errored)) {
      const command = normalizeCommand(bash.command);
      const fixed = later.find((next) => {
        const run = bashOutcome(next);
        return run !== undefined && normalizeCommand(run.command) === command && run.exitCode === 0 && !run.errored;
      });
      if (fixed) {
        candidates.push({
          startIndex: call.useIndex,
          endIndex: fixed.resultIndex,
          label: `\`${command}\` failed at turn ${turnOf(call)} and passed at turn ${turnOf(fixed)}`,
        });
      }
    }
  });

  const usable = candidates.filter((span) => {
    if (span.startIndex < 0 || span.endIndex <= span.startIndex || span.endIndex > lastSeen) return false;
    if (messages[span.startIndex]?.role !== 'assistant' || messages[span.endIndex]?.role !== 'user') return false;
    for (let index = span.startIndex; index <= span.endIndex; index += 1) if (options.isFolded(index)) return false;
    return !calls.some(
      (call) => resultsKind(call.tool) === 'instructions' && call.useIndex >= span.startIndex && call.useIndex <= span.endIndex,
    );
  });
  usable.sort((a, b) => a.startIndex - b.startIndex || b.endIndex - a.endIndex);
  const chosen: SpanCandidate[] = [];
  for (const span of usable) if (!chosen.some((taken) => span.startIndex <= taken.endIndex)) chosen.push(span);
  return chosen;
}

const MAX_LISTED_CALLS = 30;

/** The line a span is shown as. */
export function collapsedText(span: SpanCandidate, messages: readonly Message[], calls: readonly ToolCall[], root: string): string {
  const inside = calls.filter((call) => call.useIndex >= span.startIndex && call.useIndex <= span.endIndex);
  const listed = inside.slice(0, MAX_LISTED_CALLS).map((call) => describeCall(call, root));
  if (inside.length > MAX_LISTED_CALLS) listed.push(`… and ${inside.length - MAX_LISTED_CALLS} more`);
  const userTexts: string[] = [];
  let lastNote = '';
  for (let index = span.startIndex; index <= span.endIndex; index += 1) {
    const message = messages[index]!;
    for (const block of message.content) {
      if (block.type !== 'text' || block.text.trim() === '') continue;
      if (message.role === 'user') userTexts.push(block.text.trim());
      else lastNote = block.text.trim();
    }
  }
  const parts = [
    `[Collapsed from the view to save context; the session transcript keeps it whole. Finished: ${span.label}. ` +
      `${inside.length} tool call${inside.length === 1 ? '' : 's'} in between: ${listed.join('; ')}.`,
  ];
  if (lastNote) parts.push(`Your last note in it: ${clip(lastNote, 400)}`);
  for (const text of userTexts) parts.push(`A message you received in it: ${clip(text, 2_000)}`);
  return `${parts.join('\n')}]`;
}

function describeCall(call: ToolCall, root: string): string {
  const bash = bashOutcome(call);
  if (bash) {
    const ended = bash.signal ? `killed by ${bash.signal}` : bash.exitCode !== null && !bash.errored ? `exit ${bash.exitCode}` : 'failed';
    return `${call.name} ${describeInput(call, root, 100)} → ${ended}`;
  }
  const what = isTaskChange(call) ? JSON.stringify(call.input) : describeInput(call, root, 100);
  return `${call.name} ${what}${failed(call) ? ' (failed)' : ''}`;
}

function isTaskChange(call: ToolCall): boolean {
  return resultsKind(call.tool) === 'task-change';
}

function field(call: ToolCall, key: string): unknown {
  const input = call.input;
  return input !== null && typeof input === 'object' ? (input as Record<string, unknown>)[key] : undefined;
}

function taskIdOf(call: ToolCall): string {
  return String(field(call, 'taskId') ?? field(call, 'task_id') ?? field(call, 'id') ?? '');
}

function statusOf(call: ToolCall): unknown {
  return field(call, 'status');
}

function turnOf(call: ToolCall): string {
  return call.entry ? String(call.entry.turn) : '?';
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
