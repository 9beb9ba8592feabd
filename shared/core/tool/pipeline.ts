import { ToolError } from '../boundary/toolError.js';
import { describeZodError } from '../boundary/zodIssues.js';
import type { ToolResultBlock } from '../model/message.js';
import { modeCovers, type PermissionMode } from './permissionMode.js';
import type { ToolRegistry } from './registry.js';
import { applyResultBudget } from './resultBudget.js';
import { type AnyTool, isReadOnly, levelOf, type ToolContext, type ToolOutput } from './tool.js';

export interface ToolCallRequest {
  id: string;
  name: string;
  input: unknown;
}

/** A call that passed lookup and schema, as the hook and permission slots see it. */
export interface CheckedCall {
  id: string;
  tool: AnyTool;
  input: unknown;
  level: PermissionMode;
  readOnly: boolean;
  /** How long the tool itself ran, in ms: set for the after-call slots only. */
  durationMs?: number;
}

/** One call of a model turn, as the after-batch slot sees it. */
export interface BatchCall {
  id: string;
  name: string;
  /** The tool the call named, when the session has it. */
  tool?: AnyTool;
  input: unknown;
  /** The tool's result data (or its text), when it succeeded. */
  response?: unknown;
  isError: boolean;
}

export interface PreToolUseOutcome {
  decision?: 'allow' | 'deny' | 'ask';
  reason?: string;
  /** Replaces the input; parsed again against the tool's schema. */
  updatedInput?: unknown;
  /** Text for the model's next turn. */
  additionalContext?: string[];
  /** Stop the session after this call, with this reason. */
  stop?: string;
}

export interface PermissionOutcome {
  allowed: boolean;
  reason: string;
  /** The input the call runs with instead (a PermissionRequest hook's rewrite, already judged); parsed again against the tool's schema. */
  updatedInput?: unknown;
  /** Stop the session after this call, with this reason (a PermissionRequest hook's deny with `interrupt`). */
  stop?: string;
}

export interface PostToolUseOutcome {
  additionalContext?: string[];
  /** Host text added to the tool's own result, after it (the new diagnostics after an edit). */
  notes?: string[];
  /** Shown to the model with the result (a PostToolUse hook's block reason). */
  feedback?: string;
  stop?: string;
}

/**
 * The points later layers plug into: hooks before and after, the permission decision between.
 * The harness core runs with `modeOnlySlots`: no hooks, permission by mode alone.
 */
export interface ToolPipelineSlots {
  preToolUse(call: CheckedCall, ctx: ToolContext): Promise<PreToolUseOutcome>;
  permission(call: CheckedCall, pre: PreToolUseOutcome, ctx: ToolContext): Promise<PermissionOutcome>;
  postToolUse(call: CheckedCall, output: ToolOutput, ctx: ToolContext): Promise<PostToolUseOutcome>;
  postToolUseFailure(call: CheckedCall, error: string, ctx: ToolContext): Promise<PostToolUseOutcome>;
  /** Last look at a tool's output before it reaches the model (the untrusted-content wrapper). */
  present?(call: CheckedCall, content: string, ctx: ToolContext): string;
  /** After every call of one model turn ran, before the next model call (PostToolBatch). */
  postToolBatch?(calls: BatchCall[], ctx: ToolContext): Promise<PostToolUseOutcome>;
}

export const modeOnlySlots: ToolPipelineSlots = {
  async preToolUse() {
    return {};
  },
  async permission(call, _pre, ctx) {
    const allowed = modeCovers(ctx.mode, call.level);
    const reason = allowed
      ? `mode ${ctx.mode} covers ${call.level}`
      : `${call.tool.name} needs ${call.level} and this session runs in ${ctx.mode}`;
    ctx.emit({ type: 'permission', tool: call.tool.name, decision: allowed ? 'allow' : 'deny', by: `mode:${ctx.mode}`, reason });
    return { allowed, reason };
  },
  async postToolUse() {
    return {};
  },
  async postToolUseFailure() {
    return {};
  },
};

export interface ToolRunResult {
  block: ToolResultBlock;
  /** The tool the call named, when the session has it. */
  tool?: AnyTool;
  /** The parsed input the tool ran with (after any hook rewrite), when it got that far. */
  input?: unknown;
  output?: ToolOutput;
  additionalContext: string[];
  stop?: string;
  spilledTo?: string;
  /** Whether the call may have changed files: false for a call that never got past its schema or is read-only. */
  mayWrite: boolean;
}

/**
 * One tool call, start to finish: lookup → schema → validate → PreToolUse → permission → call
 * (with the session's AbortSignal) → PostToolUse → result budget. Every refusal on the way is a
 * tool_result with is_error, worded so the model can fix its next call.
 */
export async function runToolCall(
  request: ToolCallRequest,
  registry: ToolRegistry,
  slots: ToolPipelineSlots,
  ctx: ToolContext,
): Promise<ToolRunResult> {
  const run = new CallRun(request, ctx);
  const tool = registry.get(request.name);
  if (!tool || !registry.isLoaded(tool.name)) return run.finish(notCallable(request.name, tool, registry), true, { tool });
  const admitted = await admit(request.id, tool, request.input, `${tool.name} input`, ctx);
  if ('refusal' in admitted) return run.finish(admitted.refusal, true, { tool, checked: admitted.checked });
  let checked = admitted.checked;

  const pre = run.heed(await slots.preToolUse(checked, ctx));
  if (pre.decision === 'deny') {
    return run.finish(`${tool.name} was blocked by a PreToolUse hook: ${pre.reason ?? 'no reason given'}`, true, { tool, checked });
  }
  const afterHook = await readmit(checked, pre.updatedInput, 'a PreToolUse hook', ctx);
  checked = afterHook.checked;
  if (afterHook.refusal) return run.finish(afterHook.refusal, true, { tool, checked });

  const permission = await slots.permission(checked, pre, ctx);
  run.stopWith(permission.stop);
  if (!permission.allowed) return run.finish(`Permission to use ${tool.name} was denied: ${permission.reason}`, true, { tool, checked });
  const afterAnswer = await readmit(checked, permission.updatedInput, 'a PermissionRequest hook', ctx);
  checked = afterAnswer.checked;
  if (afterAnswer.refusal) return run.finish(afterAnswer.refusal, true, { tool, checked });

  if (ctx.signal.aborted) return run.finish(`${tool.name} was not run: the session was aborted.`, true, { tool, checked });
  return callTool(run, checked, slots, ctx);
}

/** What the call has gathered on its way (hook context, a stop), and how it ends: a tool_result with its event. */
class CallRun {
  private readonly started = Date.now();
  private readonly additionalContext: string[] = [];
  private stop: string | undefined;

  constructor(
    private readonly request: ToolCallRequest,
    private readonly ctx: ToolContext,
  ) {}

  /** Keeps what a hook outcome adds for the model and its stop (the first stop wins); returns the outcome. */
  heed<T extends { additionalContext?: string[]; stop?: string }>(outcome: T): T {
    this.additionalContext.push(...(outcome.additionalContext ?? []));
    this.stopWith(outcome.stop);
    return outcome;
  }

  stopWith(stop: string | undefined): void {
    this.stop ??= stop;
  }

  finish(content: string, isError: boolean, extra: { tool?: AnyTool; checked?: CheckedCall; output?: ToolOutput } = {}): ToolRunResult {
    const { request, ctx } = this;
    const budget = applyResultBudget(content, { limit: extra.tool?.resultLimit, sessionDir: ctx.session.dir, toolUseId: request.id });
    ctx.emit({
      type: 'tool_result',
      id: request.id,
      name: request.name,
      is_error: isError,
      chars: content.length,
      // The preview is for people watching (board, transcript): the tool's own words, unwrapped.
      preview: (extra.output?.content ?? content).slice(0, 200),
      spilled_to: budget.spilledTo,
      duration_ms: Date.now() - this.started,
    });
    const block: ToolResultBlock = { type: 'tool_result', tool_use_id: request.id, content: budget.content };
    if (extra.output?.images && extra.output.images.length > 0) block.images = extra.output.images;
    if (isError) block.is_error = true;
    return {
      block,
      tool: extra.tool,
      input: extra.checked?.input,
      output: extra.output,
      additionalContext: this.additionalContext,
      stop: this.stop,
      spilledTo: budget.spilledTo,
      mayWrite: extra.checked !== undefined && !extra.checked.readOnly,
    };
  }
}

/** Why a name cannot be called: no such tool, or a deferred one ToolSearch has not loaded. */
function notCallable(name: string, tool: AnyTool | undefined, registry: ToolRegistry): string {
  if (!tool) return `Unknown tool "${name}". The tools you can call are: ${registry.names().join(', ')}.`;
  return `${tool.name} is a deferred tool whose schema is not loaded yet: call ToolSearch with query "select:${tool.name}" first, then call it.`;
}

type Admission = { checked: CheckedCall } | { refusal: string; checked?: CheckedCall };

/**
 * An input as the slots see it: parsed against the tool's schema (`what` names the input in the
 * refusal) and passed by its `validate`; or the refusal, with the call when only `validate` refused.
 */
async function admit(id: string, tool: AnyTool, input: unknown, what: string, ctx: ToolContext): Promise<Admission> {
  const parsed = tool.input.safeParse(input);
  if (!parsed.success) return { refusal: describeZodError(parsed.error, what) };
  const checked: CheckedCall = { id, tool, input: parsed.data, level: levelOf(tool, parsed.data), readOnly: isReadOnly(tool, parsed.data) };
  const invalid = await tool.validate?.(parsed.data, ctx);
  return invalid ? { refusal: invalid, checked } : { checked };
}

/**
 * The call with the input a hook rewrote (`by`), admitted afresh; the call as it was when there
 * is no rewrite, or when the rewrite does not fit the schema (the refusal says so).
 */
async function readmit(
  checked: CheckedCall,
  rewritten: unknown,
  by: string,
  ctx: ToolContext,
): Promise<{ checked: CheckedCall; refusal?: string }> {
  if (rewritten === undefined) return { checked };
  const admitted = await admit(checked.id, checked.tool, rewritten, `${checked.tool.name} input as rewritten by ${by}`, ctx);
  return 'refusal' in admitted ? { checked: admitted.checked ?? checked, refusal: admitted.refusal } : admitted;
}

/** Runs the tool, then the after-call slots; the output is presented (the untrusted-content wrapper) with the slots' notes after it. */
async function callTool(run: CallRun, checked: CheckedCall, slots: ToolPipelineSlots, ctx: ToolContext): Promise<ToolRunResult> {
  const { tool } = checked;
  let output: ToolOutput;
  const callStarted = Date.now();
  try {
    output = await tool.call(checked.input, ctx);
  } catch (error) {
    const message = failureMessage(tool, error, ctx);
    const post = run.heed(await slots.postToolUseFailure({ ...checked, durationMs: Date.now() - callStarted }, message, ctx));
    return run.finish(withFeedback(message, post.feedback), true, { tool, checked });
  }
  const post = run.heed(await slots.postToolUse({ ...checked, durationMs: Date.now() - callStarted }, output, ctx));
  // Only the tool's own output is outside text to be marked as data; the host's refusals and a
  // project hook's feedback are not, so they are added after the wrapper.
  const shown = slots.present ? slots.present(checked, output.content, ctx) : output.content;
  const noted = post.notes && post.notes.length > 0 ? [shown, ...post.notes].join('\n\n') : shown;
  return run.finish(withFeedback(noted, post.feedback), false, { tool, checked, output });
}

function failureMessage(tool: AnyTool, error: unknown, ctx: ToolContext): string {
  if (error instanceof ToolError) return error.message;
  if (ctx.signal.aborted) return `${tool.name} was aborted.`;
  // Not a refusal the tool meant to make: a bug or an environment failure. Say so, and log it.
  const detail = error instanceof Error ? error.message : String(error);
  ctx.emit({
    type: 'notice',
    level: 'error',
    message: `${tool.name} failed unexpectedly: ${error instanceof Error ? (error.stack ?? detail) : detail}`,
  });
  return `${tool.name} failed unexpectedly: ${detail}`;
}

function withFeedback(content: string, feedback: string | undefined): string {
  return feedback ? `${content}\n\n[PostToolUse hook feedback] ${feedback}` : content;
}
