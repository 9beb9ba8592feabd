import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { describeZodError } from '../../core/boundary/zodIssues.js';
import type { AgentEventInput } from '../../core/events/agentEvent.js';
import type { CheckedCall, PermissionOutcome, PreToolUseOutcome, ToolPipelineSlots } from '../../core/tool/pipeline.js';
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
  let problemsReported = false;
  /** Rules a PermissionRequest hook asked to keep for this session. */
  const sessionAnswers: AnswersInAdvance[] = [];
  return async (call, pre, ctx) => {
    if (!problemsReported) {
      problemsReported = true;
      for (const problem of options.policy.problems()) ctx.emit({ type: 'notice', level: 'warn', message: problem });
    }
    const outside = limitRefusal(options, call, ctx);
    if (outside) return outside;
    const turn = judging(options, call, pre, ctx);
    const decision = turn.judge(call.input);
    turn.emit(decision);
    if (decision.behavior !== 'ask') return { allowed: decision.behavior === 'allow', reason: decision.reason };
    const inAdvance = await answeredInAdvance(options, turn, sessionAnswers);
    if (inAdvance) return inAdvance;
    const hooked = await askRequestHook(options, turn, decision, sessionAnswers);
    if ('outcome' in hooked) return hooked.outcome;
    return askPerson(options, turn, hooked.input, hooked.asking);
  };
}

/** One call being decided: the policy it is judged by (with this moment's temporary allows), and how a decision is said. */
interface Judging {
  call: CheckedCall;
  ctx: ToolContext;
  policy: PermissionPolicy;
  /** The policy's decision on the call with `input` (a PermissionRequest hook may rewrite it), the PreToolUse outcome counted unless `extra.hook` replaces it. */
  judge(input: unknown, extra?: { hook?: DecisionContext['hook']; answers?: PermissionRule[] }): PermissionDecision;
  emit(decision: PermissionDecision): void;
}

function judging(options: PermissionDeciderOptions, call: CheckedCall, pre: PreToolUseOutcome, ctx: ToolContext): Judging {
  let policy = options.policy;
  for (const extra of options.temporaryAllows?.(ctx) ?? []) policy = policy.withAllowRules(extra.rules, extra.source);
  const preHook = pre.decision ? { decision: pre.decision, reason: pre.reason } : undefined;
  return {
    call,
    ctx,
    policy,
    judge: (input, extra = {}) =>
      policy.decide(
        { tool: call.tool, input, level: input === call.input ? call.level : levelOf(call.tool, input) },
        { mode: ctx.mode, workspace: ctx.workspace, hook: 'hook' in extra ? extra.hook : preHook, answers: extra.answers },
      ),
    emit: (decision) =>
      ctx.emit({ type: 'permission', tool: call.tool.name, decision: decision.behavior, by: decision.by, reason: decision.reason }),
  };
}

/** A call outside the slash command's `allowed-tools`: denied before any rule is asked. */
function limitRefusal(options: PermissionDeciderOptions, call: CheckedCall, ctx: ToolContext): PermissionOutcome | undefined {
  const outside = options.limit?.refusal(
    { tool: call.tool, input: call.input, level: call.level },
    { workspace: ctx.workspace, home: options.home ?? os.homedir() },
  );
  if (!outside) return undefined;
  ctx.emit({ type: 'permission', tool: call.tool.name, decision: 'deny', by: `limit:${options.limit!.source}`, reason: outside });
  return { allowed: false, reason: outside };
}

/** The answers given in advance (the session's, then the prompter's: `--yes-to`, an allow for the rest of the run), when they decide. */
async function answeredInAdvance(
  options: PermissionDeciderOptions,
  turn: Judging,
  sessionAnswers: readonly AnswersInAdvance[],
): Promise<PermissionOutcome | undefined> {
  const inAdvance = [...sessionAnswers, ...((await options.prompter.answersInAdvance?.(turn.ctx.signal)) ?? [])];
  if (inAdvance.length === 0) return undefined;
  const answered = turn.judge(turn.call.input, { answers: answerRules(inAdvance) });
  if (answered.behavior === 'ask') return undefined;
  turn.emit(answered);
  return { allowed: answered.behavior === 'allow', reason: answered.reason };
}

/**
 * The PermissionRequest hooks, before any person: their outcome when they decided; else the call
 * a person is asked about (the hook's rewritten input, judged again, where an ask rule still asks).
 */
async function askRequestHook(
  options: PermissionDeciderOptions,
  turn: Judging,
  decision: PermissionDecision,
  sessionAnswers: AnswersInAdvance[],
): Promise<{ outcome: PermissionOutcome } | { input: unknown; asking: PermissionDecision }> {
  const { call, ctx, policy } = turn;
  const unanswered = { input: call.input, asking: decision };
  if (!options.requestHook) return unanswered;
  const hook = await options.requestHook(
    { tool: call.tool, input: call.input, suggestion: policy.suggest(policyCall(call), decisionContext(ctx)) },
    ctx,
  );
  if (!hook) return unanswered;
  const judged = judgeHookAnswer(hook, call, (rewritten) => turn.judge(rewritten, { hook: { decision: 'allow', reason: hook.reason } }));
  if (hook.remember.length > 0) sessionAnswers.push({ rules: hook.remember, source: `PermissionRequest hook ${hook.by}` });
  if ('outcome' in judged) {
    const { outcome } = judged;
    ctx.emit({
      type: 'permission',
      tool: call.tool.name,
      decision: outcome.allowed ? 'allow' : 'deny',
      by: judged.by,
      reason: outcome.reason,
    });
    return { outcome };
  }
  // The hook allowed a rewritten call that an ask rule still asks about: a person is asked about it.
  turn.emit(judged.decision);
  return { input: judged.input, asking: judged.decision };
}

/** A person answers, through the prompter (the Notification hooks told first); the answer is announced as it comes. */
async function askPerson(
  options: PermissionDeciderOptions,
  turn: Judging,
  input: unknown,
  asking: PermissionDecision,
): Promise<PermissionOutcome> {
  const { call, ctx, policy } = turn;
  const { prompter } = options;
  const tool = call.tool.name;
  if (ctx.signal.aborted) return { allowed: false, reason: 'the session was aborted before anyone was asked' };
  const announce = options.announce ?? ((event: AgentEventInput) => ctx.emit(event));
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
