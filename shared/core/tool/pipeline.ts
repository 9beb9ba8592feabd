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
  const started = Date.now();
  const additionalContext: string[] = [];
  let stop: string | undefined;

  const finish = (
    content: string,
    isError: boolean,
    extra: { tool?: AnyTool; checked?: CheckedCall; output?: ToolOutput } = {},
  ): ToolRunResult => {
    const budget = applyResultBudget(content, {
      limit: extra.tool?.resultLimit,
      sessionDir: ctx.session.dir,
      toolUseId: request.id,
    });
    ctx.emit({
      type: 'tool_result',
      id: request.id,
      name: request.name,
      is_error: isError,
      chars: content.length,
      // The preview is for people watching (board, transcript): the tool's own words, unwrapped.
      preview: (extra.output?.content ?? content).slice(0, 200),
      spilled_to: budget.spilledTo,
      duration_ms: Date.now() - started,
    });
    const block: ToolResultBlock = { type: 'tool_result', tool_use_id: request.id, content: budget.content };
    if (extra.output?.images && extra.output.images.length > 0) block.images = extra.output.images;
    if (isError) block.is_error = true;
    const mayWrite = extra.checked !== undefined && !extra.checked.readOnly;
    return { block, input: extra.checked?.input, output: extra.output, additionalContext, stop, spilledTo: budget.spilledTo, mayWrite };
  };

  const tool = registry.get(request.name);
  if (tool && !registry.isLoaded(tool.name)) {
    return finish(
      `${tool.name} is a deferred tool whose schema is not loaded yet: call ToolSearch with query "select:${tool.name}" first, then call it.`,
      true,
    );
  }
  if (!tool) {
    return finish(`Unknown tool "${request.name}". The tools you can call are: ${registry.names().join(', ')}.`, true);
  }

  let parsed = tool.input.safeParse(request.input);
  if (!parsed.success) return finish(describeZodError(parsed.error, `${tool.name} input`), true, { tool });

  const check = (input: unknown): CheckedCall => ({
    id: request.id,
    tool,
    input,
    level: levelOf(tool, input),
    readOnly: isReadOnly(tool, input),
  });
  let checked = check(parsed.data);

  const invalid = await tool.validate?.(parsed.data, ctx);
  if (invalid) return finish(invalid, true, { tool, checked });

  const pre = await slots.preToolUse(checked, ctx);
  additionalContext.push(...(pre.additionalContext ?? []));
  stop = pre.stop;
  if (pre.decision === 'deny') {
    return finish(`${tool.name} was blocked by a PreToolUse hook: ${pre.reason ?? 'no reason given'}`, true, { tool, checked });
  }
  if (pre.updatedInput !== undefined) {
    parsed = tool.input.safeParse(pre.updatedInput);
    if (!parsed.success) {
      return finish(describeZodError(parsed.error, `${tool.name} input as rewritten by a PreToolUse hook`), true, { tool, checked });
    }
    checked = check(parsed.data);
    const invalidAfter = await tool.validate?.(parsed.data, ctx);
    if (invalidAfter) return finish(invalidAfter, true, { tool, checked });
  }

  const permission = await slots.permission(checked, pre, ctx);
  stop ??= permission.stop;
  if (!permission.allowed) {
    return finish(`Permission to use ${tool.name} was denied: ${permission.reason}`, true, { tool, checked });
  }
  if (permission.updatedInput !== undefined) {
    parsed = tool.input.safeParse(permission.updatedInput);
    if (!parsed.success) {
      return finish(describeZodError(parsed.error, `${tool.name} input as rewritten by a PermissionRequest hook`), true, { tool, checked });
    }
    checked = check(parsed.data);
    const invalidAfter = await tool.validate?.(parsed.data, ctx);
    if (invalidAfter) return finish(invalidAfter, true, { tool, checked });
  }

  if (ctx.signal.aborted) return finish(`${tool.name} was not run: the session was aborted.`, true, { tool, checked });

  let output: ToolOutput;
  try {
    output = await tool.call(checked.input, ctx);
  } catch (error) {
    const message = failureMessage(tool, error, ctx);
    const post = await slots.postToolUseFailure(checked, message, ctx);
    additionalContext.push(...(post.additionalContext ?? []));
    stop ??= post.stop;
    return finish(withFeedback(message, post.feedback), true, { tool, checked });
  }

  const post = await slots.postToolUse(checked, output, ctx);
  additionalContext.push(...(post.additionalContext ?? []));
  stop ??= post.stop;
  // Only the tool's own output is outside text to be marked as data; the host's refusals and a
  // project hook's feedback are not, so they are added after the wrapper.
  const shown = slots.present ? slots.present(checked, output.content, ctx) : output.content;
  const noted = post.notes && post.notes.length > 0 ? [shown, ...post.notes].join('\n\n') : shown;
  return finish(withFeedback(noted, post.feedback), false, { tool, checked, output });
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
