import type { AnyTool } from '../core/tool/tool.js';
import { bashTool } from './bash.js';
import { editTool } from './edit.js';
import { globTool } from './glob.js';
import { grepTool } from './grep.js';
import { lspTool } from './lsp.js';
import { notebookEditTool } from './notebookEdit.js';
import { readTool } from './read.js';
import { rememberTool } from './remember.js';
import { skillTool } from './skill.js';
import { taskCreateTool } from './taskCreate.js';
import { taskListTool } from './taskList.js';
import { taskUpdateTool } from './taskUpdate.js';
import { writeTool } from './write.js';

/**
 * Every tool a role may name in its allow-list (Report is added to every session by the loop),
 * in the order sessions are given them. Each says what it is itself (its name, its facts).
 */
const CATALOG: readonly AnyTool[] = [
  readTool,
  editTool,
  writeTool,
  notebookEditTool,
  globTool,
  grepTool,
  lspTool,
  bashTool,
  skillTool,
  taskCreateTool,
  taskUpdateTool,
  taskListTool,
  rememberTool,
] as AnyTool[];

export function catalogTools(): readonly AnyTool[] {
  return CATALOG;
}

export function catalogToolNames(): string[] {
  return CATALOG.map((tool) => tool.name);
}

/** The catalog's tool that runs shell commands (Bash): a slash command's `!` lines are judged as its calls. */
export function shellTool(): AnyTool {
  const shell = CATALOG.find((tool) => tool.rule?.kind === 'command');
  if (!shell) throw new Error('the tool catalog has no tool that runs shell commands (a rule of kind "command")');
  return shell;
}

/**
 * The tools for an allow-list, in catalog order (a fixed order keeps the cached tool prefix
 * identical across sessions). An unknown name is an error naming the valid ones.
 */
export function toolsNamed(names: readonly string[], extra: readonly AnyTool[] = []): AnyTool[] {
  const available = [...CATALOG, ...extra];
  const unknown = names.filter((name) => !available.some((tool) => tool.name === name));
  if (unknown.length > 0) {
    throw new Error(
      `unknown tool ${unknown.map((n) => JSON.stringify(n)).join(', ')}: the tools are ${available.map((t) => t.name).join(', ')}`,
    );
  }
  return available.filter((tool) => names.includes(tool.name));
}
