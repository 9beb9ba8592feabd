import type { PermissionMode } from '../../core/tool/permissionMode.js';
import type { HookEventName } from './hookEvents.js';
import type { PermissionUpdate } from './hookOutput.js';

/**
 * The JSON a hook reads on stdin (or an http hook receives as its body), field for field as
 * Claude Code sends it, so hook scripts written for Claude Code read the same names.
 */

/** What each event adds to the common fields. */
export interface HookPayloads {
  SessionStart: { source: 'startup' | 'resume' | 'clear' | 'compact'; model?: string };
  SessionEnd: { reason: 'clear' | 'resume' | 'logout' | 'prompt_input_exit' | 'other' };
  UserPromptSubmit: { prompt: string };
  PreToolUse: { tool_name: string; tool_input: unknown; tool_use_id: string };
  PostToolUse: { tool_name: string; tool_input: unknown; tool_response: unknown; tool_use_id: string; duration_ms?: number };
  PostToolUseFailure: {
    tool_name: string;
    tool_input: unknown;
    tool_use_id: string;
    error: string;
    is_interrupt: boolean;
    duration_ms?: number;
  };
  /** After the calls of one model turn, before the next model call. */
  PostToolBatch: { tool_calls: Array<{ tool_name: string; tool_input: unknown; tool_use_id: string; tool_response?: unknown }> };
  /** orca has no background tasks or session crons: both are always empty, as Claude Code sends them then. */
  Stop: { stop_hook_active: boolean; last_assistant_message?: string; background_tasks?: unknown[]; session_crons?: unknown[] };
  /** The turn ended on an API error instead: `error` is its kind (Claude Code's names). */
  StopFailure: { error: StopFailureKind; error_details?: string; last_assistant_message?: string };
  SubagentStart: { agent_id: string; agent_type: string };
  SubagentStop: {
    stop_hook_active: boolean;
    agent_id: string;
    agent_type: string;
    agent_transcript_path?: string;
    last_assistant_message?: string;
  };
  PreCompact: { trigger: 'manual' | 'auto'; custom_instructions: string };
  PostCompact: { trigger: 'manual' | 'auto'; compact_summary: string };
  TaskCreated: { task_id: string; task_subject: string; task_description?: string };
  TaskCompleted: { task_id: string; task_subject: string; task_description?: string };
  WorktreeCreate: { name: string };
  WorktreeRemove: { worktree_path: string };
  /** As Claude Code sends it: PreToolUse's fields without `tool_use_id`, and the "always allow" options. */
  PermissionRequest: { tool_name: string; tool_input: unknown; permission_suggestions?: PermissionUpdate[] };
  PermissionDenied: { tool_name: string; tool_input: unknown; tool_use_id: string; reason: string };
  Notification: { message: string; title?: string; notification_type: string };
  InstructionsLoaded: {
    file_path: string;
    memory_type: 'User' | 'Project' | 'Local';
    load_reason: 'session_start' | 'include' | 'path_glob_match';
    globs?: string[];
    trigger_file_path?: string;
    parent_file_path?: string;
  };
}

export type StopFailureKind =
  | 'rate_limit'
  | 'authentication_failed'
  | 'billing_error'
  | 'invalid_request'
  | 'server_error'
  | 'max_output_tokens'
  | 'unknown';

/** The fields every event carries. */
export interface HookCommonInput {
  session_id: string;
  transcript_path: string;
  cwd: string;
  /** Claude Code's name for the mode (see claudeCodeMode); orca's own is `orca_permission_mode`. */
  permission_mode: ClaudeCodePermissionMode;
  orca_permission_mode: PermissionMode;
  hook_event_name: HookEventName;
  /** Set when the session runs as an agent of a role (orca: always), as with `claude --agent`. */
  agent_type?: string;
  agent_id?: string;
  /** The id of the prompt being worked on (orca: one per session), on every event after SessionStart. */
  prompt_id?: string;
  /** The effort the model works at, on the events of a turn (tool calls, their batch, Stop). */
  effort?: { level: string };
}

/** The events Claude Code sends `effort` with: those inside a model turn. */
const EFFORT_EVENTS = new Set<HookEventName>([
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'PostToolBatch',
  'PermissionRequest',
  'PermissionDenied',
  'Stop',
  'SubagentStop',
]);

export type HookInput<E extends HookEventName = HookEventName> = HookCommonInput & HookPayloads[E];

export type ClaudeCodePermissionMode = 'default' | 'plan' | 'acceptEdits' | 'bypassPermissions' | 'dontAsk';

/**
 * orca's modes under Claude Code's names, so a script that checks `permission_mode` reads a value
 * it knows: read-only is plan mode, workspace-write accepts edits, full-access needs no prompt
 * for the mode (rules and hooks still apply, as in Claude Code).
 */
export function claudeCodeMode(mode: PermissionMode): ClaudeCodePermissionMode {
  switch (mode) {
    case 'read-only':
      return 'plan';
    case 'workspace-write':
      return 'acceptEdits';
    case 'full-access':
      return 'bypassPermissions';
  }
}

export interface HookInputBase {
  sessionId: string;
  transcriptPath: string;
  cwd: string;
  mode: PermissionMode;
  /** The Claude Code mode the session was given by name (an agent file's `permissionMode`), or derived. */
  claudeMode?: ClaudeCodePermissionMode;
  agentType?: string;
  agentId?: string;
  promptId?: string;
  effort?: string;
}

export function buildHookInput<E extends HookEventName>(event: E, base: HookInputBase, payload: HookPayloads[E]): HookInput<E> {
  const common: HookCommonInput = {
    session_id: base.sessionId,
    transcript_path: base.transcriptPath,
    cwd: base.cwd,
    permission_mode: base.claudeMode ?? claudeCodeMode(base.mode),
    orca_permission_mode: base.mode,
    hook_event_name: event,
  };
  if (base.agentType !== undefined) common.agent_type = base.agentType;
  if (base.agentId !== undefined) common.agent_id = base.agentId;
  if (base.promptId !== undefined && event !== 'SessionStart') common.prompt_id = base.promptId;
  if (base.effort !== undefined && EFFORT_EVENTS.has(event)) common.effort = { level: base.effort };
  return { ...common, ...payload };
}

/** The value the event's matcher is tested against, if the event has one. */
export function matchValue(input: Record<string, unknown>, field: string | undefined): string | undefined {
  if (field === undefined) return undefined;
  const value = input[field];
  return typeof value === 'string' ? value : undefined;
}
