import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { describeZodError } from '../../core/boundary/zodIssues.js';
import type { AgentEventInput } from '../../core/events/agentEvent.js';
import type { CheckedCall, PermissionOutcome, ToolPipelineSlots } from '../../core/tool/pipeline.js';
import { levelOf, type ToolContext } from '../../core/tool/tool.js';
import type { ToolFacts } from '../../core/tool/toolFacts.js';
import type { DecisionContext, PermissionCall, PermissionDecision, PermissionPolicy } from './policy.js';
import type { AnswersInAdvance, Prompter } from './prompter.js';
import { isBroken, type PermissionRule, parseRule } from './rule.js';
import type { ToolLimit } from './toolLimit.js';

/** What a PermissionRequest hook is told about a call nobody has answered yet. */
export interface PermissionHookRequest {
  tool: ToolFacts;
  input: unknown;
  /** Allow rules that would answer calls like it (Claude Code's `permission_suggestions`). */
  suggestion: string[];
}

/** A PermissionRequest hook's answer, when one decided. */
export interface PermissionHookAnswer {
  behavior: 'allow' | 'deny';
  reason: string;
  /** The hooks that decided. */
  by: string;
  /** Allow only: the input the call runs with instead, judged again by the deny and ask rules. */
  updatedInput?: Record<string, unknown>;
  /** Allow only: rules that answer later calls of this session like it (`updatedPermissions`). */
  remember: string[];
  /** Deny only: the session stops too. */
  interrupt: boolean;
}

export interface PermissionDeciderOptions {
  policy: PermissionPolicy;
  /** Who answers when a call needs more than the rules and the session's mode (`ctx.mode`) give. */
  prompter: Prompter;
  /**
   * Allow rules that hold for now only (a loaded skill's `allowed-tools`), each group named by
   * its source; asked afresh at every call.
   */
  temporaryAllows?: (ctx: ToolContext) => Array<{ rules: string[]; source: string }>;
  /** PermissionRequest hooks: they answer before any person is asked; undefined when none decided. */
  requestHook?: (request: PermissionHookRequest, ctx: ToolContext) => Promise<PermissionHookAnswer | undefined>;
  /**
   * Records an event at once rather than after the call, so whoever watches sees the question and
   * its answer when they happen; without it, events are emitted on the context as usual.
   */
  announce?: (event: AgentEventInput) => void;
  /** The run's slash command `allowed-tools`: a call outside it is denied before any rule is asked. */
  limit?: ToolLimit;
  /** The user's home, for `~/` in the limit's specifiers. */
  home?: string;
  /** Told just before a person is asked (the Notification hooks, `permission_prompt`). */
  beforeAsk?: (question: { tool: string; summary: string; reason: string }, ctx: ToolContext) => Promise<void>;
}

/**
 * Fills `ToolPipelineSlots.permission`. The PreToolUse outcome counts the way it does in Claude
 * Code: a hook's deny has already stopped the call; a hook's allow stands in for the prompt the
 * mode would need, but never overrides a deny or ask rule, a destructive command or a guarded
 * path; a hook's ask sends the call on to be answered.
 *
 * A call that needs an answer is answered, first by what answers without a person: the answers
 * given in advance (`--yes-to`, an allow for the rest of the run, a hook's `updatedPermissions`),
 * then the PermissionRequest hooks; then the prompter asks. Every decision is emitted as a
 * `permission` event naming the rule, mode, hook, check or person that made it.
 */
export function createPermissionDecider(options: PermissionDeciderOptions): ToolPipelineSlots['permission'] {
  const { prompter } = options;
  let problemsReported = false;
  /** Rules a PermissionRequest hook asked to keep for this session. */
  const sessionAnswers: AnswersInAdvance[] = [];
  return async (call, pre, ctx) => {
    if (!problemsReported) {
      problemsReported = true;
      for (const problem of options.policy.problems()) ctx.emit({ type: 'notice', level: 'warn', message: problem });
    }
    const announce = options.announce ?? ((event: AgentEventInput) => ctx.emit(event));
    const tool = call.tool.name;
    const outside = options.limit?.refusal(
      { tool: call.tool, input: call.input, level: call.level },
      { workspace: ctx.workspace, home: options.home ?? os.homedir() },
    );
    if (outside) {
      ctx.emit({ type: 'permission', tool, decision: 'deny', by: `limit:${options.limit!.source}`, reason: outside });
      return { allowed: false, reason: outside };
    }
    let policy = options.policy;
    for (const extra of options.temporaryAllows?.(ctx) ?? []) policy = policy.withAllowRules(extra.rules, extra.source);
    const preHook = pre.decision ? { decision: pre.decision, reason: pre.reason } : undefined;
    const judge = (input: unknown, extra: { hook?: typeof preHook; answers?: PermissionRule[] } = {}): PermissionDecision =>
      policy.decide(
        { tool: call.tool, input, level: input === call.input ? call.level : levelOf(call.tool, input) },
        { mode: ctx.mode, workspace: ctx.workspace, hook: 'hook' in extra ? extra.hook : preHook, answers: extra.answers },
      );
    const emit = (decision: PermissionDecision) =>
      ctx.emit({ type: 'permission', tool, decision: decision.behavior, by: decision.by, reason: decision.reason });

    const decision = judge(call.input);
    emit(decision);
    if (decision.behavior !== 'ask') return { allowed: decision.behavior === 'allow', reason: decision.reason };

    const inAdvance = [...sessionAnswers, ...((await prompter.answersInAdvance?.(ctx.signal)) ?? [])];
    if (inAdvance.length > 0) {
      const answered = judge(call.input, { answers: answerRules(inAdvance) });
      if (answered.behavior !== 'ask') {
        emit(answered);
        return { allowed: answered.behavior === 'allow', reason: answered.reason };
      }
    }

    let input = call.input;
    let asking = decision;
    if (options.requestHook) {
      const hook = await options.requestHook(
        { tool: call.tool, input, suggestion: policy.suggest(policyCall(call), decisionContext(ctx)) },
        ctx,
      );
      if (hook) {
        const judged = judgeHookAnswer(hook, call, (rewritten) => judge(rewritten, { hook: { decision: 'allow', reason: hook.reason } }));
        if (hook.remember.length > 0) sessionAnswers.push({ rules: hook.remember, source: `PermissionRequest hook ${hook.by}` });
        if ('outcome' in judged) {
          ctx.emit({
            type: 'permission',
            tool,
            decision: judged.outcome.allowed ? 'allow' : 'deny',
            by: judged.by,
            reason: judged.outcome.reason,
          });
          return judged.outcome;
        }
        // The hook allowed a rewritten call that an ask rule still asks about: a person is asked about it.
        input = judged.input;
        asking = judged.decision;
        emit(asking);
      }
    }

    if (ctx.signal.aborted) return { allowed: false, reason: 'the session was aborted before anyone was asked' };
    await options.beforeAsk?.({ tool, summary: asking.summary, reason: asking.reason }, ctx);
    const answer = await prompter.ask(
      {
        id: randomBytes(4).toString('hex'),
        tool,
        summary: asking.summary,
        reason: asking.reason,
        by: asking.by,
        input,
        cwd: ctx.workspace.root,
        suggestion: policy.suggest(policyCall({ ...call, input }), decisionContext(ctx)),
      },
      ctx.signal,
      announce,
    );
    announce({
      type: 'permission',
      tool,
      decision: answer.allowed ? 'allow' : 'deny',
      by: answer.by ?? `prompter:${prompter.name}`,
      reason: answer.reason,
      ...(answer.requestId !== undefined ? { request_id: answer.requestId } : {}),
      ...(answer.via !== undefined ? { via: answer.via } : {}),
    });
    const outcome: PermissionOutcome = { allowed: answer.allowed, reason: answer.reason };
    if (answer.allowed && input !== call.input) outcome.updatedInput = input;
    return outcome;
  };
}

/**
 * What a PermissionRequest hook's answer comes to: a deny (which may stop the session), an allow,
 * or, for an allow that rewrote the input, the rewritten call judged again: a deny rule still
 * denies it and an ask rule still asks.
 */
function judgeHookAnswer(
  hook: PermissionHookAnswer,
  call: CheckedCall,
  judge: (input: unknown) => PermissionDecision,
): { outcome: PermissionOutcome; by: string } | { input: unknown; decision: PermissionDecision } {
  const by = `hook:PermissionRequest ${hook.by}`;
  if (hook.behavior === 'deny') {
    return { by, outcome: { allowed: false, reason: hook.reason, ...(hook.interrupt ? { stop: hook.reason } : {}) } };
  }
  if (hook.updatedInput === undefined) return { by, outcome: { allowed: true, reason: hook.reason } };
  const parsed = call.tool.input.safeParse(hook.updatedInput);
  if (!parsed.success) {
    const reason = describeZodError(parsed.error, `${call.tool.name} input as rewritten by a PermissionRequest hook`);
    return { by, outcome: { allowed: false, reason } };
  }
  const decision = judge(parsed.data);
  if (decision.behavior === 'ask') return { input: parsed.data, decision };
  if (decision.behavior === 'deny') return { by: decision.by, outcome: { allowed: false, reason: decision.reason } };
  return { by, outcome: { allowed: true, reason: hook.reason, updatedInput: parsed.data } };
}

function answerRules(groups: AnswersInAdvance[]): PermissionRule[] {
  const rules: PermissionRule[] = [];
  for (const group of groups) {
    for (const text of group.rules) {
      // A rule that cannot be read answers nothing: the question is asked as if it were not there.
      const rule = parseRule(text, 'allow', group.source);
      if (!isBroken(rule)) rules.push(rule);
    }
  }
  return rules;
}

/** The call as the policy judges it. */
function policyCall(call: CheckedCall): PermissionCall {
  return { tool: call.tool, input: call.input, level: levelOf(call.tool, call.input) };
}

function decisionContext(ctx: ToolContext): DecisionContext {
  return { mode: ctx.mode, workspace: ctx.workspace };
}
