import { z } from 'zod';

/**
 * The hook events orca fires, with Claude Code's names, and what each one's exit code 2 and
 * matcher mean there. The rules of one event live in its row of EVENT_TRAITS.
 */
export const HOOK_EVENTS = [
  'SessionStart',
  'SessionEnd',
  'UserPromptSubmit',
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'PostToolBatch',
  'Stop',
  'StopFailure',
  'SubagentStart',
  'SubagentStop',
  'PreCompact',
  'PostCompact',
  'TaskCreated',
  'TaskCompleted',
  'WorktreeCreate',
  'WorktreeRemove',
  'PermissionRequest',
  'PermissionDenied',
  'Notification',
  'InstructionsLoaded',
] as const;

export const HookEventNameSchema = z.enum(HOOK_EVENTS);
export type HookEventName = z.infer<typeof HookEventNameSchema>;

/** Claude Code events orca does not fire; named apart so a settings file using them gets a precise error. */
export const CLAUDE_CODE_ONLY_EVENTS = [
  'Setup',
  'UserPromptExpansion',
  'TeammateIdle',
  'ConfigChange',
  'CwdChanged',
  'FileChanged',
  'DirectoryAdded',
  'Elicitation',
  'ElicitationResult',
  'PreModelSwitch',
  'PostModelSwitch',
  'MessageDisplay',
] as const;

export interface HookEventTraits {
  /** The stdin field the matcher is tested against; absent: the event has no matcher and every group runs. */
  matchOn?: 'tool_name' | 'source' | 'reason' | 'trigger' | 'agent_type' | 'notification_type' | 'error' | 'load_reason';
  /**
   * What exit code 2 (or `decision: "block"`) does: `block` stops the action and its reason goes to
   * the model; `feedback` shows the reason to the model after the fact (the tool already ran);
   * `none` cannot block: stderr is logged for the user only.
   */
  exit2: 'block' | 'feedback' | 'none';
  /** Plain (non-JSON) stdout on exit 0 becomes context for the model, not just a log line. */
  plainStdoutIsContext?: true;
  /** Any non-zero exit blocks, not only 2 (WorktreeCreate: a failed hook means no worktree). */
  anyFailureBlocks?: true;
}

export const EVENT_TRAITS: Record<HookEventName, HookEventTraits> = {
  SessionStart: { matchOn: 'source', exit2: 'none', plainStdoutIsContext: true },
  SessionEnd: { matchOn: 'reason', exit2: 'none' },
  UserPromptSubmit: { exit2: 'block', plainStdoutIsContext: true },
  PreToolUse: { matchOn: 'tool_name', exit2: 'block' },
  PostToolUse: { matchOn: 'tool_name', exit2: 'feedback' },
  PostToolUseFailure: { matchOn: 'tool_name', exit2: 'feedback' },
  PostToolBatch: { exit2: 'feedback' },
  Stop: { exit2: 'block' },
  StopFailure: { matchOn: 'error', exit2: 'none' },
  SubagentStart: { matchOn: 'agent_type', exit2: 'none' },
  SubagentStop: { matchOn: 'agent_type', exit2: 'block' },
  PreCompact: { matchOn: 'trigger', exit2: 'block' },
  PostCompact: { matchOn: 'trigger', exit2: 'none' },
  TaskCreated: { exit2: 'block' },
  TaskCompleted: { exit2: 'block' },
  WorktreeCreate: { exit2: 'block', anyFailureBlocks: true },
  WorktreeRemove: { exit2: 'none' },
  PermissionRequest: { matchOn: 'tool_name', exit2: 'block' },
  PermissionDenied: { matchOn: 'tool_name', exit2: 'none' },
  Notification: { matchOn: 'notification_type', exit2: 'none' },
  InstructionsLoaded: { matchOn: 'load_reason', exit2: 'none' },
};
