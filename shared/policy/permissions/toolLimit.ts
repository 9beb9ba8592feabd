import type { Workspace } from '../../core/files/workspace.js';
import type { PermissionMode } from '../../core/tool/permissionMode.js';
import { REPORT_TOOL } from '../../core/tool/report.js';
import type { ToolFacts } from '../../core/tool/toolFacts.js';
import { callParts } from './callParts.js';
import { isBroken, type PermissionRule, parseRule } from './rule.js';
import { ruleAppliesTo, ruleCovers } from './ruleMatch.js';

/**
 * The `allowed-tools` of the slash command a run was started with (docs/claude-code-files.md,
 * "Slash commands"), as a limit on every agent of the run:
 * - an agent has only the tools some entry names (`Read` also covers Grep and Glob, `Edit`
 *   covers Write, as in permission rules; Report is always there);
 * - a tool named only with specifiers (`Bash(git diff:*)`, `Read(src/**)`) may be called only as
 *   they say: every command of a Bash call, or the path of a file tool, must be covered by one;
 *   what a call writes is then judged by the usual rules and the agent's mode;
 * - `*` (or no `allowed-tools`) sets no limit.
 * Entries are also allow rules while the run lasts, as in Claude Code (the harness adds them).
 */
export class ToolLimit {
  private constructor(
    readonly source: string,
    readonly texts: string[],
    private readonly rules: PermissionRule[],
  ) {}

  /** The limit of these entries; undefined for none or `*`. A rule that cannot be read is an error naming it. */
  static from(texts: readonly string[], source: string): ToolLimit | undefined {
    if (texts.length === 0 || texts.some((text) => text.trim() === '*')) return undefined;
    const rules = texts.map((text) => {
      const rule = parseRule(text, 'allow', source);
      if (isBroken(rule)) throw new Error(`${source}: allowed-tools entry "${text}" cannot be read: ${rule.problem}`);
      return rule;
    });
    return new ToolLimit(source, [...texts], rules);
  }

  /** Whether an agent of the run may have this tool at all. */
  allowsTool(tool: ToolFacts): boolean {
    return tool.name === REPORT_TOOL || this.rules.some((rule) => ruleAppliesTo(rule.tool, tool));
  }

  /** Why the call is outside the limit, or undefined when it is inside. */
  refusal(
    call: { tool: ToolFacts; input: unknown; level: PermissionMode },
    context: { workspace: Workspace; home: string },
  ): string | undefined {
    // Every agent can hand back its Report, whatever the command allows.
    if (call.tool.name === REPORT_TOOL) return undefined;
    const rules = this.rules.filter((rule) => ruleAppliesTo(rule.tool, call.tool));
    if (rules.length === 0) return `${call.tool.name} is not in the allowed-tools of ${this.source}`;
    if (rules.some((rule) => rule.specifier === undefined)) return undefined;
    const facts = callParts(call.tool, call.input, call.level, {
      workspace: context.workspace,
      writableOutside: [],
      shellLevel: 'full-access',
      sandboxed: false,
    });
    if (facts.refusal) return undefined; // The policy refuses it, saying why.
    const anchors = { root: context.workspace.root, home: context.home };
    const outside = facts.parts
      .filter((part) => part.tool.name === call.tool.name)
      .find((part) => !rules.some((rule) => ruleCovers(rule, part.subject, anchors) === true));
    if (!outside) return undefined;
    return `\`${outside.label}\` is outside the allowed-tools of ${this.source}: ${call.tool.name} may be used only as ${rules.map((rule) => rule.text).join(', ')}`;
  }
}
