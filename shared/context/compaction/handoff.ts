import path from 'node:path';
import type { ToolLedgerEntry } from '../../core/loop/toolLedger.js';
import type { Message } from '../../core/model/message.js';
import type { Model, SystemBlock, ToolSpec } from '../../core/model/model.js';
import type { Usage } from '../../core/model/usage.js';
import { bashResultFields } from '../../core/tool/bashResultData.js';
import { loadDescription } from '../../core/tool/tool.js';
import { pathInput, resultsKind, type ToolFacts } from '../../core/tool/toolFacts.js';
import type { CheckEvidence } from './checkEvidence.js';
import { resultFileOf } from './resultArchive.js';
import { describeInput, failed, type ToolCall, toolCallsIn } from './toolCalls.js';

/**
 * The hand-off summary an autocompaction replaces the history with. Its prose has eight fixed
 * sections; with a real model the model writes them (one call, no tools, handoff-prompt.md), with
 * the Scripted model they are built here, locally and deterministically, from the transcript and
 * the ledger. Either way the host appends the two evidence sections (checkEvidence.ts) itself.
 */
export const HANDOFF_SECTIONS = [
  'Request',
  'Key concepts',
  'Files touched',
  'Errors and fixes',
  'Every user message',
  'Pending tasks',
  'Current work',
  'Next step',
] as const;

export const HANDOFF_PROMPT = loadDescription(import.meta.url, './handoff-prompt.md');
const HANDOFF_INTRO = loadDescription(import.meta.url, './handoff-intro.md');

export function renderHandoff(prose: string, evidenceText: string): string {
  return `<system-reminder>\n${HANDOFF_INTRO}\n</system-reminder>\n\n# Hand-off summary\n\n${prose.trim()}\n\n${evidenceText}`;
}

/** The section headings a summary lacks (so a model's summary that skipped one is a failure). */
export function missingSections(prose: string): string[] {
  return HANDOFF_SECTIONS.filter((title) => !new RegExp(`^#{1,3}\\s*${title}\\s*$`, 'im').test(prose));
}

export interface LocalHandoffInput {
  messages: readonly Message[];
  ledger: readonly ToolLedgerEntry[];
  root: string;
  sessionDir: string;
  evidence: CheckEvidence;
  pendingTasks?: string[];
  skillsInUse: string[];
}

export function localHandoffProse(input: LocalHandoffInput): string {
  const calls = toolCallsIn(input.messages, input.ledger);
  const sections: Record<(typeof HANDOFF_SECTIONS)[number], string> = {
    Request: clip(userTexts(input.messages[0]).join('\n\n') || '(no task text)', 4_000),
    'Key concepts': keyConcepts(calls, input),
    'Files touched': filesTouched(calls, input.root),
    'Errors and fixes': errorsAndFixes(calls, input.root),
    'Every user message': input.messages
      .flatMap((message) => userTexts(message))
      .map((text, index) => `${index + 1}. ${clip(text, 2_000)}`)
      .join('\n'),
    'Pending tasks':
      input.pendingTasks === undefined
        ? 'No task list is kept in this session.'
        : input.pendingTasks.length === 0
          ? 'None open in the task list.'
          : input.pendingTasks.map((task) => `- ${task}`).join('\n'),
    'Current work': currentWork(input.messages, calls, input.root, input.sessionDir),
    'Next step': nextStep(input.evidence),
  };
  const note = '(Written by orca from the transcript and its tool records: this session runs the Scripted model, which writes no prose.)';
  return [note, ...HANDOFF_SECTIONS.map((title) => `## ${title}\n${sections[title] || 'Nothing recorded.'}`)].join('\n\n');
}

/**
 * The model writes the eight sections: the current view plus the hand-off prompt, with the
 * session's tools defined (the API wants them while the view holds tool calls, and they are part
 * of what its thinking blocks are bound to) but not callable. Text is collected (a `retry`
 * restarts it); the usage is returned for the session's accounts.
 */
export async function modelHandoffProse(
  model: Model,
  request: { system: SystemBlock[]; view: Message[]; tools: ToolSpec[]; maxTokens: number; extraInstructions?: string },
  signal: AbortSignal,
): Promise<{ prose: string; usage?: Usage }> {
  const prompt = request.extraInstructions ? `${HANDOFF_PROMPT}\n\nAlso: ${request.extraInstructions}` : HANDOFF_PROMPT;
  const messages = request.view.map((message) => ({ ...message, content: [...message.content] }));
  const last = messages.at(-1);
  if (last && last.role === 'user') last.content.push({ type: 'text', text: prompt });
  else messages.push({ role: 'user', content: [{ type: 'text', text: prompt }] });
  let text = '';
  let usage: Usage | undefined;
  const call = {
    system: request.system,
    messages,
    tools: request.tools,
    toolChoice: 'none' as const,
    cacheTools: true,
    maxTokens: request.maxTokens,
  };
  for await (const event of model.stream(call, signal)) {
    if (event.type === 'text_delta') text += event.text;
    else if (event.type === 'retry') text = '';
    else if (event.type === 'message_end') usage = event.usage;
  }
  return { prose: text.replace(/<analysis>[\s\S]*?<\/analysis>/g, '').trim(), usage };
}

function userTexts(message: Message | undefined): string[] {
  if (message?.role !== 'user') return [];
  return message.content
    .filter((block) => block.type === 'text')
    .map((block) => block.text.trim())
    .filter((text) => text !== '');
}

function keyConcepts(calls: ToolCall[], input: LocalHandoffInput): string {
  const counts = new Map<string, number>();
  for (const call of calls) counts.set(call.name, (counts.get(call.name) ?? 0) + 1);
  const lines = [`- Tool calls so far: ${[...counts].map(([name, count]) => `${name} ×${count}`).join(', ') || 'none'}.`];
  const checks = [...new Set(input.evidence.failing.concat(input.evidence.stale.map((item) => item.run)).map((run) => run.command))];
  if (input.evidence.lastPass) checks.unshift(input.evidence.lastPass.command);
  if (checks.length > 0) lines.push(`- Check commands run: ${[...new Set(checks)].map((command) => `\`${command}\``).join(', ')}.`);
  if (input.skillsInUse.length > 0) lines.push(`- Skills loaded: ${input.skillsInUse.join(', ')}.`);
  return lines.join('\n');
}

function filesTouched(calls: ToolCall[], root: string): string {
  const files = new Map<string, string[]>();
  for (const call of calls) {
    const verb = fileVerb(call.tool);
    const given = pathInput(call.tool, call.input);
    if (verb === undefined || given === undefined || failed(call)) continue;
    const rel = path.relative(root, path.resolve(root, given)) || given;
    const verbs = files.get(rel) ?? [];
    if (!verbs.includes(verb)) verbs.push(verb);
    files.set(rel, verbs);
  }
  return [...files].map(([file, verbs]) => `- ${file}: ${verbs.join(', ')}`).join('\n') || 'None.';
}

/** How a hand-off lists a file a tool's call touched: `read`, or the verb of its change; undefined for tools that touch no file. */
function fileVerb(tool: ToolFacts | undefined): string | undefined {
  const results = tool?.results;
  if (results?.kind === 'file-read') return 'read';
  return results?.kind === 'file-change' ? results.verb : undefined;
}

function errorsAndFixes(calls: ToolCall[], root: string): string {
  const lines: string[] = [];
  calls.forEach((call, index) => {
    const bashExit = exitCodeOf(call);
    const nonZero = bashExit !== undefined && bashExit !== 0;
    if (!failed(call) && !nonZero) return;
    const what = `${call.name} ${describeInput(call, root, 120)}`;
    const how = nonZero ? `exit code ${bashExit}` : firstLine(call.result?.content ?? '');
    const same = (next: ToolCall) => next.name === call.name && JSON.stringify(next.input) === JSON.stringify(call.input);
    const succeeded = (next: ToolCall) => !failed(next) && (resultsKind(next.tool) !== 'command' || exitCodeOf(next) === 0);
    const redone = calls.slice(index + 1).find((next) => same(next) && succeeded(next));
    const after = redone ? `; the same call later succeeded (turn ${redone.entry?.turn ?? '?'})` : '; not shown fixed since';
    lines.push(`- Turn ${call.entry?.turn ?? '?'}: ${what} → ${how}${after}.`);
  });
  return lines.slice(-40).join('\n') || 'None.';
}

/** A command run's exit code, when it has one. */
function exitCodeOf(call: ToolCall): number | undefined {
  return resultsKind(call.tool) === 'command' ? bashResultFields(call.entry?.data).exitCode : undefined;
}

function currentWork(messages: readonly Message[], calls: ToolCall[], root: string, sessionDir: string): string {
  const lastAssistant = [...messages].reverse().find((message) => message.role === 'assistant');
  if (!lastAssistant) return 'Nothing yet.';
  const text = lastAssistant.content
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .join('\n')
    .trim();
  const index = messages.lastIndexOf(lastAssistant);
  const recent = calls
    .filter((call) => call.useIndex === index)
    .map((call) => {
      const head = `- ${call.name} ${describeInput(call, root, 160)}${failed(call) ? ' (failed)' : ''}`;
      if (!call.result) return head;
      // Results the summary replaces: a glimpse, and where the whole of it is (files come back below).
      const where = resultsKind(call.tool) === 'file-read' ? '' : ` (whole result: ${resultFileOf(call, sessionDir)})`;
      return `${head} → ${firstLine(call.result.content)}${where}`;
    });
  return [text ? `Last note: ${clip(text, 1_000)}` : '', recent.length > 0 ? `Last tool calls:\n${recent.join('\n')}` : '']
    .filter(Boolean)
    .join('\n');
}

function nextStep(evidence: CheckEvidence): string {
  const failing = evidence.failing[0];
  if (failing) return `Find and fix what makes \`${failing.command}\` fail (log: ${failing.logPath ?? 'none'}), then run it again.`;
  if (evidence.unverified.length > 0 || evidence.stale.length > 0)
    return 'Run the checks that cover the unverified changes, after the last edit, and read their results.';
  return 'Carry on from the current work above; when the task is done and checked, end with Report.';
}

function firstLine(text: string): string {
  return clip(
    text
      .split('\n')
      .find((line) => line.trim() !== '')
      ?.trim() ?? '',
    200,
  );
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
