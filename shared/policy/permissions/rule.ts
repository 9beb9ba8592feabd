/**
 * Permission rules in Claude Code's syntax: `Tool` or `Tool(specifier)`, listed under
 * `permissions.allow`, `permissions.ask` or `permissions.deny` of a settings file.
 */
export const RULE_BEHAVIORS = ['deny', 'ask', 'allow'] as const;
export type RuleBehavior = (typeof RULE_BEHAVIORS)[number];

export interface PermissionRule {
  behavior: RuleBehavior;
  /** The tool name: `Bash`, `Read`, `Edit`, `mcp__server__tool`, … */
  tool: string;
  /** What is inside the parentheses; undefined for a bare `Tool` (and for `Tool(*)`). */
  specifier?: string;
  /** The rule as written. */
  text: string;
  /** Where it was written, e.g. `.claude/settings.json`. */
  source: string;
}

/** A rule that could not be read. Its tool, when it can be told, is refused rather than guessed at. */
export interface BrokenRule {
  behavior: RuleBehavior;
  text: string;
  source: string;
  tool?: string;
  problem: string;
}

/** A tool name, or every tool of an MCP server (`mcp__github__*`). */
const TOOL_NAME = '[A-Za-z][A-Za-z0-9_-]*(?:__\\*)?';
const RULE = new RegExp(`^(${TOOL_NAME})(?:\\((.*)\\))?$`, 's');

export function parseRule(text: string, behavior: RuleBehavior, source: string): PermissionRule | BrokenRule {
  const trimmed = text.trim();
  const match = RULE.exec(trimmed);
  if (!match) {
    const tool = new RegExp(`^(${TOOL_NAME})\\(`).exec(trimmed)?.[1];
    const problem = tool
      ? `the specifier has no closing ")"`
      : 'a rule is a tool name, optionally followed by a specifier in parentheses, e.g. Bash(npm test:*)';
    return tool ? { behavior, text, source, tool, problem } : { behavior, text, source, problem };
  }
  const tool = match[1]!;
  const specifier = match[2];
  if (specifier !== undefined && specifier.trim() === '') {
    return { behavior, text, source, tool, problem: 'the specifier in parentheses is empty' };
  }
  const rule: PermissionRule = { behavior, tool, text: trimmed, source };
  if (specifier !== undefined && specifier.trim() !== '*') rule.specifier = specifier.trim();
  return rule;
}

export function isBroken(rule: PermissionRule | BrokenRule): rule is BrokenRule {
  return 'problem' in rule;
}

/** How a decision names the rule that made it: `deny:Bash(rm -rf *) in .claude/settings.json`. */
export function ruleLabel(rule: PermissionRule | BrokenRule): string {
  return `${rule.behavior}:${rule.text} in ${rule.source}`;
}
