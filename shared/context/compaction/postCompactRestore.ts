import path from 'node:path';
import { numberLines, splitLines } from '../../core/files/numberedLines.js';
import { normalizeLineEndings } from '../../core/files/textCodec.js';
import { loadTextFile } from '../../core/files/textFile.js';
import type { ToolLedgerEntry } from '../../core/loop/toolLedger.js';
import type { TextBlock } from '../../core/model/message.js';
import { readResultFile } from '../../core/tool/readResultData.js';
import type { SkillInfo, SkillLibrary } from '../instructions/skills.js';
import { describeTask, type TaskListSource } from './taskListSource.js';

/**
 * What an autocompaction puts back after the summary, so the next turn does not start blind:
 * - the most recently read files (newest first, `restoreFiles` of them), as they are on disk NOW,
 *   each up to `restoreFileTokens` and all together up to `restoreTotalTokens`;
 * - the task list, when the session has one;
 * - the instructions of the skills in use and the conditional rules already in force.
 * Once the compaction is kept, the session's file state keeps only the files still shown
 * (forgetHiddenReads in forgetReads.ts): for any other file the model must Read again before it edits.
 */
export interface RestoreInput {
  ledger: readonly ToolLedgerEntry[];
  root: string;
  /** Files whose Read results stay visible anyway (in the exchange kept after the summary). */
  stillVisible: Set<string>;
  limits: { files: number; fileTokens: number; totalTokens: number };
  tasks?: TaskListSource;
  skills: readonly SkillInfo[];
  library?: SkillLibrary;
  rules: string[];
}

const CHARS_PER_TOKEN = 4;

export async function restoreAfterCompaction(input: RestoreInput): Promise<{ blocks: TextBlock[]; shownFiles: Set<string> }> {
  const blocks: TextBlock[] = [];
  const shown = new Set<string>(input.stillVisible);
  let budget = input.limits.totalTokens * CHARS_PER_TOKEN;
  for (const file of recentlyRead(input.ledger, input.root)) {
    if (shown.size - input.stillVisible.size >= input.limits.files || budget <= 0) break;
    if (shown.has(file)) continue;
    const rel = display(file, input.root);
    let text: string;
    try {
      text = normalizeLineEndings(loadTextFile(file, rel).text);
    } catch (error) {
      blocks.push({
        type: 'text',
        text: `${rel} was read earlier but cannot be shown again: ${error instanceof Error ? error.message : String(error)}`,
      });
      shown.add(file);
      continue;
    }
    const lines = splitLines(text);
    const cap = Math.min(input.limits.fileTokens * CHARS_PER_TOKEN, budget);
    let numbered = '';
    let count = 0;
    for (const line of lines) {
      const next = numberLines([line], count + 1);
      if (numbered.length + next.length + 1 > cap && count > 0) break;
      numbered += (count > 0 ? '\n' : '') + next;
      count += 1;
    }
    budget -= numbered.length;
    const cut =
      count < lines.length
        ? `\n[Only lines 1–${count} of ${lines.length} are shown here: Read it with offset=${count + 1} for the rest.]`
        : '';
    blocks.push({ type: 'text', text: `Recently read file ${rel}, as it is on disk now:\n${numbered || '(empty file)'}${cut}` });
    shown.add(file);
  }

  if (input.tasks) {
    const tasks = await input.tasks.list();
    blocks.push({ type: 'text', text: `The task list now:\n${tasks.length > 0 ? tasks.map(describeTask).join('\n') : '(empty)'}` });
  }
  for (const skill of input.skills) {
    const body = input.library ? input.library.body(skill) : '';
    const cap = input.limits.fileTokens * CHARS_PER_TOKEN;
    blocks.push({
      type: 'text',
      text: `Skill in use: ${skill.name} (${skill.file}). Its instructions still apply:\n\n${body.length > cap ? `${body.slice(0, cap)}\n[cut: load the skill again for the rest]` : body}`,
    });
  }
  for (const rule of input.rules) blocks.push({ type: 'text', text: rule });
  return { blocks, shownFiles: shown };
}

/** Files read successfully (the calls whose results are file reads), newest first, each once. */
function recentlyRead(ledger: readonly ToolLedgerEntry[], root: string): string[] {
  const files: string[] = [];
  for (let index = ledger.length - 1; index >= 0; index -= 1) {
    const entry = ledger[index]!;
    if (entry.isError) continue;
    const file = readResultFile(entry, root);
    if (file && !files.includes(file)) files.push(file);
  }
  return files;
}

function display(file: string, root: string): string {
  const rel = path.relative(root, file);
  return rel.startsWith('..') || path.isAbsolute(rel) ? file : rel.split(path.sep).join('/');
}
