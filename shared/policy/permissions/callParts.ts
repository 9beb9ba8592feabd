import type { Workspace } from '../../core/files/workspace.js';
import { EDITING_TOOLS } from '../../core/tool/editingTools.js';
import type { PermissionMode } from '../../core/tool/permissionMode.js';
import { bashParts } from './bashParts.js';
import type { CallPart, CallParts, PartsContext } from './callPart.js';
import { READ_TOOLS, type RuleSubject } from './ruleMatch.js';
import { guardedOf, resolveInWorkspace } from './workspaceWrites.js';

/** Input fields that name the file or folder a tool works on. */
const PATH_FIELDS: Record<string, string> = {
  Read: 'file_path',
  Edit: 'file_path',
  Write: 'file_path',
  MultiEdit: 'file_path',
  NotebookEdit: 'notebook_path',
  NotebookRead: 'notebook_path',
  Glob: 'path',
  Grep: 'path',
  LS: 'path',
};
/** Input fields a specifier names for other tools. */
const VALUE_FIELDS: Record<string, string> = { Skill: 'skill' };

export function callParts(tool: string, input: unknown, level: PermissionMode, context: PartsContext): CallParts {
  if (tool === 'Bash') return bashParts(stringField(input, 'command') ?? '', context);
  const pathField = Object.hasOwn(PATH_FIELDS, tool) ? PATH_FIELDS[tool] : undefined;
  if (pathField) return fileParts(tool, stringField(input, pathField), level, context.workspace);
  const valueField = Object.hasOwn(VALUE_FIELDS, tool) ? VALUE_FIELDS[tool] : undefined;
  const value = valueField ? stringField(input, valueField) : undefined;
  const subject: RuleSubject = value === undefined ? { kind: 'none' } : { kind: 'value', value };
  const summary = value ?? (JSON.stringify(input) ?? '').slice(0, 200);
  return { parts: [{ tool, subject, label: summary, level }], denyOnly: [], summary };
}

function fileParts(tool: string, requested: string | undefined, level: PermissionMode, workspace: Workspace): CallParts {
  const writes = EDITING_TOOLS.has(tool);
  if (requested === undefined && !READ_TOOLS.has(tool)) {
    return { refusal: { by: 'workspace', reason: `${tool} was called without a file path` }, parts: [], denyOnly: [], summary: tool };
  }
  const given = requested ?? '.';
  const resolved = resolveInWorkspace(workspace, given, writes ? 'write' : 'read');
  if ('refusal' in resolved) return { refusal: { by: 'workspace', reason: resolved.refusal }, parts: [], denyOnly: [], summary: given };
  const part: CallPart = { tool, subject: { kind: 'path', paths: resolved.paths }, label: given, level };
  const guarded = writes ? guardedOf(resolved.relatives) : undefined;
  if (guarded) part.needsNamedAllow = { by: 'guarded-path', reason: guarded.reason, example: `Edit(${guarded.relative})` };
  return { parts: [part], denyOnly: [], summary: given };
}

function stringField(input: unknown, field: string): string | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const value = (input as Record<string, unknown>)[field];
  return typeof value === 'string' ? value : undefined;
}
