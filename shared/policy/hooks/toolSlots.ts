import path from 'node:path';
import type { PostToolUseOutcome, PreToolUseOutcome, ToolPipelineSlots } from '../../core/tool/pipeline.js';
import { REPORT_TOOL } from '../../core/tool/report.js';
import type { ToolContext } from '../../core/tool/tool.js';
import type { ToolFacts } from '../../core/tool/toolFacts.js';
import { presentToolResult } from '../permissions/untrusted.js';
import { hookContextFor } from './hookContext.js';
import type { HookOutcome } from './hookOutcome.js';
import { runHooks } from './hookRunner.js';
import type { HooksConfig } from './hooksConfig.js';

export interface HarnessSlotsOptions {
  hooks: HooksConfig;
  /** The permission decider; it receives PreToolUse's decision and must let no allow override a deny rule. */
  permission: ToolPipelineSlots['permission'];
  /** The last look at a result before the model reads it; default: the untrusted-content wrapper. */
  present?: (tool: ToolFacts, content: string) => string;
}

/**
 * The tool pipeline's slots with hooks in them: PreToolUse before the permission decision
 * (its deny refuses the call; its allow/ask and rewritten input go to the decider), PostToolUse
 * after a success, PostToolUseFailure after a failure, and every result presented through the
 * untrusted-content wrapper.
 */
export function createHarnessSlots(options: HarnessSlotsOptions): ToolPipelineSlots {
  const { hooks } = options;
  const present = options.present ?? presentToolResult;
  return {
    preToolUse: (call, ctx) => preToolUse(hooks, call, ctx),
    permission: (call, pre, ctx) => permissionThenDenied(hooks, options.permission, call, pre, ctx),
    postToolUse: (call, output, ctx) => postToolUse(hooks, call, output, ctx),
    postToolUseFailure: (call, error, ctx) => postToolUseFailure(hooks, call, error, ctx),
    postToolBatch: (calls, ctx) => postToolBatch(hooks, calls, ctx),
    present: (call, content) => present(call.tool, content),
  };
}

type Slot<Name extends keyof ToolPipelineSlots> = Parameters<NonNullable<ToolPipelineSlots[Name]>>;

/** The PreToolUse hooks: their deny (or stop) refuses the call, said as a permission event; their allow or ask, and a rewritten input, go on to the decider. */
async function preToolUse(hooks: HooksConfig, ...[call, ctx]: Slot<'preToolUse'>): Promise<PreToolUseOutcome> {
  // orca's Report is the agent's final answer, not a tool call, as in Claude Code: hooks never see it.
  if (call.tool.name === REPORT_TOOL) return {};
  const outcome = await runHooks(
    hooks,
    'PreToolUse',
    { tool_name: call.tool.name, tool_input: inputForHooks(call.input, ctx, call.tool), tool_use_id: call.id },
    hookContextFor(ctx),
  );
  const pre: PreToolUseOutcome = {};
  if (outcome.additionalContext.length > 0) pre.additionalContext = outcome.additionalContext;
  if (outcome.decision !== undefined) pre.decision = outcome.decision;
  if (outcome.decisionReason !== undefined) pre.reason = outcome.decisionReason;
  if (outcome.stop !== undefined) {
    pre.stop = outcome.stop;
    // The session ends after this call: do not run a tool the hook's stop was meant to prevent.
    if (pre.decision !== 'deny') {
      pre.decision = 'deny';
      pre.reason = `the session is stopping: ${outcome.stop}`;
    }
  }
  if (pre.decision === 'deny') {
    ctx.emit({
      type: 'permission',
      tool: call.tool.name,
      decision: 'deny',
      by: `hook:PreToolUse ${blockingLabels(outcome)}`,
      reason: pre.reason ?? '',
    });
  } else if (outcome.updatedInput !== undefined) {
    pre.updatedInput = outcome.updatedInput;
  }
  return pre;
}

/** The decider's answer; a refusal is told to the PermissionDenied hooks after the fact (they cannot undo it). */
async function permissionThenDenied(
  hooks: HooksConfig,
  permission: ToolPipelineSlots['permission'],
  ...[call, pre, ctx]: Slot<'permission'>
): ReturnType<ToolPipelineSlots['permission']> {
  const decided = await permission(call, pre, ctx);
  if (!decided.allowed && call.tool.name !== REPORT_TOOL && !ctx.signal.aborted) {
    await runHooks(
      hooks,
      'PermissionDenied',
      { tool_name: call.tool.name, tool_input: inputForHooks(call.input, ctx, call.tool), tool_use_id: call.id, reason: decided.reason },
      hookContextFor(ctx),
    );
  }
  return decided;
}

async function postToolUse(hooks: HooksConfig, ...[call, output, ctx]: Slot<'postToolUse'>): Promise<PostToolUseOutcome> {
  if (call.tool.name === REPORT_TOOL) return {};
  const outcome = await runHooks(
    hooks,
    'PostToolUse',
    {
      tool_name: call.tool.name,
      tool_input: inputForHooks(call.input, ctx, call.tool),
      tool_response: await responseForHooks(call.tool, output.data !== undefined ? output.data : output.content),
      tool_use_id: call.id,
      ...(call.durationMs !== undefined ? { duration_ms: call.durationMs } : {}),
    },
    hookContextFor(ctx),
  );
  return afterCall(outcome);
}

async function postToolUseFailure(hooks: HooksConfig, ...[call, error, ctx]: Slot<'postToolUseFailure'>): Promise<PostToolUseOutcome> {
  if (call.tool.name === REPORT_TOOL) return {};
  const outcome = await runHooks(
    hooks,
    'PostToolUseFailure',
    {
      tool_name: call.tool.name,
      tool_input: inputForHooks(call.input, ctx, call.tool),
      tool_use_id: call.id,
      error,
      is_interrupt: ctx.signal.aborted,
      ...(call.durationMs !== undefined ? { duration_ms: call.durationMs } : {}),
    },
    hookContextFor(ctx),
  );
  return afterCall(outcome);
}

async function postToolBatch(hooks: HooksConfig, ...[calls, ctx]: Slot<'postToolBatch'>): Promise<PostToolUseOutcome> {
  const shown = calls.filter((call) => call.name !== REPORT_TOOL);
  if (shown.length === 0) return {};
  const toolCalls = await Promise.all(
    shown.map(async (call) => ({
      tool_name: call.name,
      tool_input: inputForHooks(call.input, ctx, call.tool),
      tool_use_id: call.id,
      ...(call.response !== undefined ? { tool_response: await responseForHooks(call.tool, call.response) } : {}),
    })),
  );
  const outcome = await runHooks(hooks, 'PostToolBatch', { tool_calls: toolCalls }, hookContextFor(ctx));
  return afterCall(outcome);
}

function afterCall(outcome: HookOutcome): PostToolUseOutcome {
  const post: PostToolUseOutcome = {};
  if (outcome.additionalContext.length > 0) post.additionalContext = outcome.additionalContext;
  if (outcome.feedback !== undefined) post.feedback = outcome.feedback;
  if (outcome.stop !== undefined) post.stop = outcome.stop;
  return post;
}

function blockingLabels(outcome: HookOutcome): string {
  const labels = outcome.results.filter((r) => r.block !== undefined || r.stop !== undefined).map((r) => r.label);
  return labels.length > 0 ? labels.join('; ') : outcome.results.map((r) => r.label).join('; ');
}

/**
 * The tool input as Claude Code shows it to hooks: with the defaults its tool fills in
 * (`hookInputDefaults`) where the model left them out, and `file_path` (NotebookEdit's
 * `notebook_path`) absolute. The model may give it relative to the workspace; a hook written for
 * Claude Code expects an absolute path.
 */
export function inputForHooks(input: unknown, ctx: ToolContext, tool?: ToolFacts): unknown {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return input;
  const defaults = Object.entries(tool?.hookInputDefaults ?? {}).filter(([key]) => !(key in input));
  let shown = { ...input, ...Object.fromEntries(defaults) } as Record<string, unknown>;
  for (const field of ['file_path', 'notebook_path']) {
    const given = shown[field];
    if (typeof given === 'string' && given !== '' && !path.isAbsolute(given))
      shown = { ...shown, [field]: path.resolve(ctx.workspace.root, given) };
  }
  return shown;
}

/**
 * A tool's result as Claude Code gives it to hooks (`tool_response`), in its tool's shape
 * (`hookResponse`), so a hook written for Claude Code (`.tool_response.stdout`) reads the same
 * fields; as it is for a tool that declares none (Read, Glob, Grep already agree).
 */
async function responseForHooks(tool: ToolFacts | undefined, response: unknown): Promise<unknown> {
  return tool?.hookResponse ? tool.hookResponse(response) : response;
}
