import type { ToolContext } from '../../core/tool/tool.js';
import type { PermissionHookAnswer, PermissionHookRequest } from '../permissions/permissionSlot.js';
import { isBroken, type PermissionRule, parseRule } from '../permissions/rule.js';
import { hookContextFor } from './hookContext.js';
import type { PermissionUpdate } from './hookOutput.js';
import { matchingHooks, runHooks } from './hookRunner.js';
import type { HooksConfig } from './hooksConfig.js';
import { inputForHooks } from './toolSlots.js';

/**
 * Claude Code's PermissionRequest event: fired when a call needs an answer, before any person is
 * asked. The hook reads the call (`tool_name`, `tool_input`) and the "always allow" options
 * (`permission_suggestions`), and may answer for the user with `hookSpecificOutput.decision`:
 * `allow` (with `updatedInput`, judged again by the deny and ask rules, and `updatedPermissions`)
 * or `deny` (with `message`, and `interrupt` to stop the agent); exit code 2 denies with stderr.
 * A hook that answers nothing leaves the question to the people watching.
 *
 * Of `updatedPermissions`, orca applies `addRules` entries with behavior `allow`, for the rest of
 * the agent's session, whatever their `destination` (orca writes no settings file); the other
 * entries are ignored and said so in a notice.
 */
export function permissionRequestHook(hooks: HooksConfig) {
  return async (request: PermissionHookRequest, ctx: ToolContext): Promise<PermissionHookAnswer | undefined> => {
    if (matchingHooks(hooks, 'PermissionRequest', { tool_name: request.tool.name }).length === 0) return undefined;
    const outcome = await runHooks(
      hooks,
      'PermissionRequest',
      {
        tool_name: request.tool.name,
        tool_input: inputForHooks(request.input, ctx, request.tool),
        permission_suggestions: suggestionEntries(request.suggestion),
      },
      hookContextFor(ctx),
    );
    const deciders = outcome.results.filter((result) =>
      outcome.decision === 'deny' ? result.block !== undefined || result.stop !== undefined : result.decision === outcome.decision,
    );
    const by = deciders.map((result) => result.label).join('; ');
    if (outcome.blocked || outcome.stop !== undefined) {
      return {
        behavior: 'deny',
        reason: outcome.reason ?? outcome.stop ?? `a PermissionRequest hook (${by}) denied it`,
        by,
        remember: [],
        interrupt: outcome.stop !== undefined,
      };
    }
    if (outcome.decision !== 'allow') return undefined;
    const { rules, ignored } = allowRulesOf(outcome.updatedPermissions);
    if (ignored.length > 0) {
      ctx.emit({
        type: 'notice',
        level: 'warn',
        message: `PermissionRequest hook ${by}: orca applies only addRules entries with behavior allow (for this session); ignored: ${ignored.join(', ')}`,
      });
    }
    return {
      behavior: 'allow',
      reason: outcome.decisionReason ?? `a PermissionRequest hook (${by}) allowed it`,
      by,
      ...(outcome.updatedInput !== undefined ? { updatedInput: outcome.updatedInput } : {}),
      remember: rules,
      interrupt: false,
    };
  };
}

/** The suggested rules as one `addRules` entry, the shape Claude Code gives them in. */
function suggestionEntries(rules: string[]): PermissionUpdate[] {
  const parsed = rules.map((text) => parseRule(text, 'allow', 'suggestion')).filter((rule): rule is PermissionRule => !isBroken(rule));
  if (parsed.length === 0) return [];
  return [
    {
      type: 'addRules',
      rules: parsed.map((rule) =>
        rule.specifier === undefined ? { toolName: rule.tool } : { toolName: rule.tool, ruleContent: rule.specifier },
      ),
      behavior: 'allow',
      destination: 'session',
    },
  ];
}

function allowRulesOf(updates: PermissionUpdate[]): { rules: string[]; ignored: string[] } {
  const rules: string[] = [];
  const ignored: string[] = [];
  for (const update of updates) {
    if (update.type !== 'addRules' || update.behavior !== 'allow') {
      ignored.push(`${update.type}${update.behavior ? ` ${update.behavior}` : ''}`);
      continue;
    }
    for (const rule of update.rules ?? [])
      rules.push(rule.ruleContent === undefined ? rule.toolName : `${rule.toolName}(${rule.ruleContent})`);
  }
  return { rules, ignored };
}
