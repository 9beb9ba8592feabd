import type { Workspace } from '../../core/files/workspace.js';
import type { PermissionMode } from '../../core/tool/permissionMode.js';
import { familyOf, stringField, type ToolFacts } from '../../core/tool/toolFacts.js';
import { bashParts } from './bashParts.js';
import type { CallPart, CallParts, PartsContext } from './callPart.js';
import { familyRuleName, type RuleSubject } from './ruleMatch.js';
import { guardedOf, resolveInWorkspace } from './workspaceWrites.js';

/**
 * What a call gives rules to compare with, from the field its tool's rule names (ToolFacts.rule):
 * a shell command's parts, the path of a file tool (inside the workspace), a value, or nothing.
 */
export function callParts(tool: ToolFacts, input: unknown, level: PermissionMode, context: PartsContext): CallParts {
  const rule = tool.rule;
  if (rule?.kind === 'command') return bashParts({ shell: tool, writesAs: rule.writesAs }, stringField(input, rule.field) ?? '', context);
  if (rule?.kind === 'path') return fileParts(tool, stringField(input, rule.field), level, context.workspace);
  const value = rule?.kind === 'value' ? stringField(input, rule.field) : undefined;
  const subject: RuleSubject = value === undefined ? { kind: 'none' } : { kind: 'value', value };
  const summary = value ?? (JSON.stringify(input) ?? '').slice(0, 200);
  return { parts: [{ tool, subject, label: summary, level }], denyOnly: [], summary };
}

/** A file tool's path, resolved in the workspace: a tool that changes files must name one; one that reads reads the workspace without. */
function fileParts(tool: ToolFacts, requested: string | undefined, level: PermissionMode, workspace: Workspace): CallParts {
  const family = familyOf(tool);
  const writes = family === 'edit';
  if (requested === undefined && family !== 'read') {
    return {
      refusal: { by: 'workspace', reason: `${tool.name} was called without a file path` },
      parts: [],
      denyOnly: [],
      summary: tool.name,
    };
  }
  const given = requested ?? '.';
  const resolved = resolveInWorkspace(workspace, given, writes ? 'write' : 'read');
  if ('refusal' in resolved) return { refusal: { by: 'workspace', reason: resolved.refusal }, parts: [], denyOnly: [], summary: given };
  const part: CallPart = { tool, subject: { kind: 'path', paths: resolved.paths }, label: given, level };
  const guarded = writes ? guardedOf(resolved.relatives) : undefined;
  if (guarded) {
    part.needsNamedAllow = { by: 'guarded-path', reason: guarded.reason, example: `${familyRuleName(tool)}(${guarded.relative})` };
  }
  return { parts: [part], denyOnly: [], summary: given };
}
