import os from 'node:os';
import type { ToolPipelineSlots } from '../../core/tool/pipeline.js';
import type { ToolContext } from '../../core/tool/tool.js';
import type { PermissionPolicy } from './policy.js';
import type { Prompter } from './prompter.js';
import type { ToolLimit } from './toolLimit.js';

export interface PermissionDeciderOptions {
  policy: PermissionPolicy;
  /** Who answers when a call needs more than the rules and the session's mode (`ctx.mode`) give. */
  prompter: Prompter;
  /**
   * Allow rules that hold for now only (a loaded skill's `allowed-tools`), each group named by
   * its source; asked afresh at every call.
   */
  temporaryAllows?: (ctx: ToolContext) => Array<{ rules: string[]; source: string }>;
  /** The run's slash command `allowed-tools`: a call outside it is denied before any rule is asked. */
  limit?: ToolLimit;
  /** The user's home, for `~/` in the limit's specifiers. */
  home?: string;
}

/**
 * Fills `ToolPipelineSlots.permission`. The PreToolUse outcome counts the way it does in Claude
 * Code: a hook's deny has already stopped the call; a hook's allow stands in for the prompt the
 * mode would need, but never overrides a deny or ask rule, a destructive command or a guarded
 * path; a hook's ask sends the call to the prompter. Every decision is emitted as a `permission`
 * event naming the rule, mode, hook, check or prompter that made it.
 */
export function createPermissionDecider(options: PermissionDeciderOptions): ToolPipelineSlots['permission'] {
  const { prompter } = options;
  let problemsReported = false;
  return async (call, pre, ctx) => {
    if (!problemsReported) {
      problemsReported = true;
      for (const problem of options.policy.problems()) ctx.emit({ type: 'notice', level: 'warn', message: problem });
    }
    const tool = call.tool.name;
    const outside = options.limit?.refusal(
      { tool, input: call.input, level: call.level },
      { workspace: ctx.workspace, home: options.home ?? os.homedir() },
    );
    if (outside) {
      ctx.emit({ type: 'permission', tool, decision: 'deny', by: `limit:${options.limit!.source}`, reason: outside });
      return { allowed: false, reason: outside };
    }
    let policy = options.policy;
    for (const extra of options.temporaryAllows?.(ctx) ?? []) policy = policy.withAllowRules(extra.rules, extra.source);
    const decision = policy.decide(
      { tool, input: call.input, level: call.level },
      { mode: ctx.mode, workspace: ctx.workspace, hook: pre.decision ? { decision: pre.decision, reason: pre.reason } : undefined },
    );
    ctx.emit({ type: 'permission', tool, decision: decision.behavior, by: decision.by, reason: decision.reason });
    if (decision.behavior !== 'ask') return { allowed: decision.behavior === 'allow', reason: decision.reason };

    const answer = await prompter.ask({ tool, summary: decision.summary, reason: decision.reason }, ctx.signal);
    ctx.emit({
      type: 'permission',
      tool,
      decision: answer.allowed ? 'allow' : 'deny',
      by: `prompter:${prompter.name}`,
      reason: answer.reason,
    });
    return { allowed: answer.allowed, reason: answer.reason };
  };
}
