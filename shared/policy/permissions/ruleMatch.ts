import { familyOf, type ToolFacts, type ToolFamily } from '../../core/tool/toolFacts.js';
import { type PathAnchors, pathPatternMatches } from './pathPattern.js';
import type { PermissionRule } from './rule.js';

/**
 * Claude Code's rule names for a family of tools: `Read(…)` governs every tool that reads files,
 * `Edit(…)` every tool that changes them (ToolFamily). A rule naming any other tool (Claude
 * Code's MultiEdit, LS, NotebookRead, which orca lacks, among them) governs that tool alone.
 */
const FAMILY_RULE_NAMES: Partial<Record<ToolFamily, string>> = { read: 'Read', edit: 'Edit' };

/** The name a rule that covers this tool and its family gives (`Edit` for Write), else its own. */
export function familyRuleName(tool: ToolFacts): string {
  return FAMILY_RULE_NAMES[familyOf(tool)] ?? tool.name;
}

/** What a rule's specifier is compared with, for one call (or one part of a shell command). */
export type RuleSubject =
  /** One simple command: as written and with wrappers such as `timeout 5` stripped. */
  | { kind: 'command'; texts: string[] }
  /** A file the call touches: the path as given and where it really leads, both absolute. */
  | { kind: 'path'; paths: string[] }
  /** A tool whose input has one field rules name (Skill's `skill`). */
  | { kind: 'value'; value: string }
  /** A tool whose calls have nothing a specifier could name. */
  | { kind: 'none' };

/**
 * Whether a rule naming `ruleTool` is about `tool`: by name, by its family for Read and Edit
 * rules, and for MCP tools by server as in Claude Code: `mcp__github` and `mcp__github__*` are
 * about every tool of the github server.
 */
export function ruleAppliesTo(ruleTool: string, tool: ToolFacts): boolean {
  const toolName = tool.name;
  if (ruleTool === toolName) return true;
  if (toolName.startsWith('mcp__')) {
    if (ruleTool.endsWith('__*')) return toolName.startsWith(ruleTool.slice(0, -1));
    if (/^mcp__[A-Za-z0-9_-]+$/.test(ruleTool) && !ruleTool.slice('mcp__'.length).includes('__')) {
      return toolName.startsWith(`${ruleTool}__`);
    }
  }
  return ruleTool === FAMILY_RULE_NAMES[familyOf(tool)];
}

/**
 * Whether an applicable rule covers the subject. A bare rule covers every call of its tool. A
 * specifier rule on a tool with nothing to compare returns 'unclear': the caller decides which
 * way that fails (a deny or ask rule then counts as matching).
 */
export function ruleCovers(rule: PermissionRule, subject: RuleSubject, anchors: PathAnchors): boolean | 'unclear' {
  const specifier = rule.specifier;
  if (specifier === undefined) return true;
  switch (subject.kind) {
    case 'command':
      return subject.texts.some((text) => commandPatternMatches(specifier, text));
    case 'path':
      return subject.paths.some((file) => pathPatternMatches(specifier, file, anchors));
    case 'value':
      return wildcardMatches(specifier, subject.value);
    case 'none':
      return 'unclear';
  }
}

/** A rule that names what it allows, rather than a whole tool: only these unlock destructive commands and guarded paths. */
export function namesItsTarget(rule: PermissionRule): boolean {
  return rule.specifier !== undefined;
}

/**
 * Bash specifiers: `npm test:*` is a prefix (the command, or the command followed by a space
 * and anything); with `*` elsewhere it is a wildcard, and a single trailing ` *` may match
 * nothing (`git push *` covers `git push`); without `*` the command must be exactly that.
 */
export function commandPatternMatches(specifier: string, command: string): boolean {
  const spec = specifier.replace(/\s+/g, ' ').trim();
  const text = command.trim();
  if (spec.endsWith(':*') && !hasWildcard(spec.slice(0, -2))) {
    const prefix = spec.slice(0, -2);
    return text === prefix || text.startsWith(`${prefix} `);
  }
  return wildcardMatches(spec, text);
}

function wildcardMatches(specifier: string, value: string): boolean {
  if (!hasWildcard(specifier)) return value === specifier.replace(/\\\*/g, '*');
  return wildcardRegex(specifier).test(value);
}

function hasWildcard(text: string): boolean {
  return /(^|[^\\])\*/.test(text);
}

const regexes = new Map<string, RegExp>();

function wildcardRegex(specifier: string): RegExp {
  let regex = regexes.get(specifier);
  if (!regex) {
    const pieces = specifier.split(/(?<!\\)\*/).map((piece) => escapeRegex(piece.replace(/\\\*/g, '*')));
    const optionalTail = pieces.length === 2 && pieces[1] === '' && specifier.endsWith(' *');
    const body = optionalTail ? `${pieces[0]!.slice(0, -1)}( [\\s\\S]*)?` : pieces.join('[\\s\\S]*');
    regex = new RegExp(`^${body}$`);
    regexes.set(specifier, regex);
  }
  return regex;
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
