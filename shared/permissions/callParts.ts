import path from 'node:path';
import { isInside, type Workspace } from '../files/workspace.js';
import { ToolError } from '../tools/toolError.js';
import { analyzeBash, isHarmlessWriteTarget, type ShellWrite } from './bashAnalysis.js';
import { isReadOnlyShellCommand } from './bashLevel.js';
import { destructiveReason } from './destructiveCommands.js';
import { guardedReason } from './guardedPaths.js';
import type { PermissionMode } from './mode.js';
import { EDIT_TOOLS, READ_TOOLS, type RuleSubject } from './ruleMatch.js';

/**
 * One thing a call does that rules are checked against: the call itself for most tools, each
 * simple command and each file redirection for Bash. A call is allowed by rules only when every
 * part is.
 */
export interface CallPart {
  /** The tool name rules are matched against (`Write` for a Bash redirection). */
  tool: string;
  subject: RuleSubject;
  /** How the part is shown in reasons: a command or a path. */
  label: string;
  /** The mode this part needs when no allow rule covers it. */
  level: PermissionMode;
  /** Set when only an allow rule that names the part will do (destructive commands, guarded paths). */
  needsNamedAllow?: { by: 'destructive' | 'guarded-path' | 'bash-analysis'; reason: string; example: string };
}

export interface CallParts {
  /** Set when the call is refused whatever the rules say: it writes outside the workspace, or cannot be analysed. */
  refusal?: { by: string; reason: string };
  parts: CallPart[];
  /** Checked against deny and ask rules only (the whole Bash command, so `Bash(curl * | sh)` can deny). */
  denyOnly: CallPart[];
  /** What a permission prompt shows. */
  summary: string;
}

export interface PartsContext {
  workspace: Workspace;
  /** Folders outside the workspace Bash may write to (the sandbox's private /tmp). */
  writableOutside: string[];
  /** Level for a Bash command that is not read-only (workspace-write when it runs in the sandbox). */
  shellLevel: PermissionMode;
}

/** Input fields that name the file or folder a tool works on. */
const PATH_FIELDS: Record<string, string> = {
  Read: 'file_path', Edit: 'file_path', Write: 'file_path', MultiEdit: 'file_path',
  NotebookEdit: 'notebook_path', NotebookRead: 'notebook_path', Glob: 'path', Grep: 'path', LS: 'path',
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
  const writes = EDIT_TOOLS.has(tool);
  if (requested === undefined && !READ_TOOLS.has(tool)) {
    return { refusal: { by: 'workspace', reason: `${tool} was called without a file path` }, parts: [], denyOnly: [], summary: tool };
  }
  const given = requested ?? '.';
  const resolved = resolveInWorkspace(workspace, given, writes ? 'write' : 'read');
  if ('refusal' in resolved) return { refusal: { by: 'workspace', reason: resolved.refusal }, parts: [], denyOnly: [], summary: given };
  const part: CallPart = { tool, subject: { kind: 'path', paths: resolved.paths }, label: given, level };
  const guarded = writes ? guardedOf(resolved.relatives) : undefined;
  if (guarded) part.needsNamedAllow = { by: 'guarded-path', reason: guarded, example: `Edit(${resolved.relatives[0]})` };
  return { parts: [part], denyOnly: [], summary: given };
}

function bashParts(command: string, context: PartsContext): CallParts {
  const summary = command;
  const analysis = analyzeBash(command);
  if (!analysis.ok) {
    return { refusal: { by: 'bash-analysis', reason: `the command cannot be checked: ${analysis.reason}` }, parts: [], denyOnly: [], summary };
  }
  const parts: CallPart[] = [];
  for (const found of analysis.commands) {
    const written = found.written.map((word) => word.raw).join(' ');
    const runs = found.argv.map((word) => word.raw).join(' ');
    const part: CallPart = {
      tool: 'Bash',
      subject: { kind: 'command', texts: [...new Set([written, runs])] },
      label: written,
      level: isReadOnlyShellCommand(found) ? 'read-only' : context.shellLevel,
    };
    // A command that cannot be identified might be a destructive one: it needs the same named allow.
    const destructive = destructiveReason(found);
    const concern = destructive ?? found.unclear;
    if (concern) {
      const by = destructive ? 'destructive' : 'bash-analysis';
      part.needsNamedAllow = { by, reason: `\`${written}\`: ${concern}`, example: `Bash(${runs})` };
    }
    parts.push(part);
  }
  for (const write of analysis.writes) {
    const outcome = redirectPart(write, context);
    if (outcome === undefined) continue;
    if ('refusal' in outcome) return { refusal: outcome.refusal, parts: [], denyOnly: [], summary };
    parts.push(outcome);
  }
  const denyOnly: CallPart[] = [{ tool: 'Bash', subject: { kind: 'command', texts: [command.trim()] }, label: command.trim(), level: 'read-only' }];
  return { parts, denyOnly, summary };
}

/** A redirection as a write of its target, checked like a Write of that path; undefined when it writes nowhere. */
function redirectPart(write: ShellWrite, context: PartsContext): CallPart | { refusal: { by: string; reason: string } } | undefined {
  const target = write.target;
  const shown = `${write.op} ${target.raw}`;
  if (target.dynamic || /[*?[]/.test(target.value)) {
    return { refusal: { by: 'bash-analysis', reason: `cannot tell which file \`${shown}\` writes until it runs; name the file literally` } };
  }
  if (isHarmlessWriteTarget(target.value)) return undefined;
  if (write.cwd === undefined && !path.posix.isAbsolute(target.value)) {
    return { refusal: { by: 'bash-analysis', reason: `cannot tell which folder \`${shown}\` writes into after the \`cd\` before it; use an absolute path or drop the cd` } };
  }
  const root = context.workspace.root;
  const candidates = (write.cwd ?? ['.']).map((cwd) => path.resolve(root, cwd, target.value));
  const paths: string[] = [];
  const relatives: string[] = [];
  for (const candidate of candidates) {
    // The sandbox's private /tmp is not the host's: nothing written there reaches the user.
    const privateScratch = !context.workspace.contains(candidate) && context.writableOutside.some((dir) => isInside(candidate, dir));
    if (privateScratch) continue;
    const resolved = resolveInWorkspace(context.workspace, candidate, 'write');
    if ('refusal' in resolved) return { refusal: { by: 'workspace', reason: `\`${shown}\`: ${resolved.refusal}` } };
    paths.push(...resolved.paths);
    relatives.push(...resolved.relatives);
  }
  if (paths.length === 0) return undefined;
  const part: CallPart = { tool: 'Write', subject: { kind: 'path', paths }, label: shown, level: 'workspace-write' };
  const guarded = guardedOf(relatives);
  if (guarded) part.needsNamedAllow = { by: 'guarded-path', reason: guarded, example: `Edit(${relatives[0]})` };
  return part;
}

/** The path as given and where it really leads (symlinks followed), or the workspace's refusal. */
function resolveInWorkspace(
  workspace: Workspace,
  requested: string,
  access: 'read' | 'write',
): { paths: string[]; relatives: string[] } | { refusal: string } {
  let real: string;
  try {
    real = workspace.resolve(requested, access);
  } catch (error) {
    if (error instanceof ToolError) return { refusal: error.message };
    throw error;
  }
  const paths = [...new Set([path.resolve(workspace.root, requested), real])];
  const relatives = paths.filter((file) => workspace.contains(file)).map((file) => workspace.relative(file));
  return { paths, relatives };
}

function guardedOf(relatives: string[]): string | undefined {
  for (const relative of relatives) {
    const reason = guardedReason(relative);
    if (reason) return reason;
  }
  return undefined;
}

function stringField(input: unknown, field: string): string | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const value = (input as Record<string, unknown>)[field];
  return typeof value === 'string' ? value : undefined;
}
