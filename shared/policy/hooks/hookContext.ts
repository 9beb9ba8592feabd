import path from 'node:path';
import type { AgentEventInput } from '../../core/events/agentEvent.js';
import type { PermissionMode } from '../../core/tool/permissionMode.js';
import type { ToolContext } from '../../core/tool/tool.js';
import './claudeTranscript.js';
import { withoutOrcaState } from '../../core/runtime/agentEnv.js';
import type { ClaudeCodePermissionMode } from './hookInput.js';

declare module '../../core/tool/tool.js' {
  interface SessionServices {
    /** The session's mode under Claude Code's name, as hooks read it in `permission_mode`. */
    claudePermissionMode?: ClaudeCodePermissionMode;
    /** What hooks read as `prompt_id` and `effort.level`. */
    hookPrompt?: { promptId: string; effort: string };
  }
}

/** What a hook run needs to know about the session that fires it. */
export interface HookContext {
  /** The project root: the working directory of command hooks and `CLAUDE_PROJECT_DIR`. */
  projectDir: string;
  /** The `cwd` field of the input (the agent's working directory; usually projectDir). */
  cwd: string;
  sessionId: string;
  transcriptPath: string;
  mode: PermissionMode;
  /** `permission_mode` in hook input, when the session knows it under Claude Code's name. */
  claudeMode?: ClaudeCodePermissionMode;
  role: string;
  agentId?: string;
  promptId?: string;
  effort?: string;
  /** Extra environment for hooks (ORCA_RUN_ID, ORCA_TASK_ID, PORT, …), over the process's own. */
  env: Record<string, string>;
  /** Brings the file `transcriptPath` names up to date; run before any hook reads it. */
  syncTranscript?: () => void;
  /** Aborting it kills the running hooks' process groups and cancels http hooks. */
  signal: AbortSignal;
  emit(event: AgentEventInput): void;
  /** Under `--sandbox required`: command hooks run in the session's bwrap sandbox. */
  wrap?: (command: string, cwd: string) => { file: string; args: string[] };
}

/** Where a session's JSONL transcript lives, as `transcript_path` tells hooks. */
export function transcriptPathFor(sessionDir: string): string {
  return path.join(sessionDir, 'transcript.jsonl');
}

/** The hook context of a tool call: the workspace root is the project, the shell env is the hook env. */
export function hookContextFor(ctx: ToolContext): HookContext {
  return {
    projectDir: ctx.workspace.root,
    cwd: ctx.workspace.root,
    sessionId: ctx.session.id,
    // Claude Code's format when the session keeps one (the harness always does), else orca's log.
    transcriptPath: ctx.services.claudeTranscript?.file ?? transcriptPathFor(ctx.session.dir),
    syncTranscript: ctx.services.claudeTranscript ? () => ctx.services.claudeTranscript?.sync() : undefined,
    mode: ctx.mode,
    ...(ctx.services.claudePermissionMode !== undefined ? { claudeMode: ctx.services.claudePermissionMode } : {}),
    ...(ctx.services.hookPrompt ? { promptId: ctx.services.hookPrompt.promptId, effort: ctx.services.hookPrompt.effort } : {}),
    role: ctx.session.role,
    env: ctx.shell.env,
    signal: ctx.signal,
    emit: (event) => ctx.emit(event),
    ...(ctx.shell.hookWrap ? { wrap: ctx.shell.hookWrap } : {}),
  };
}

/** The environment a hook process runs with: ours, the session's, and the variables hooks rely on. */
export function hookEnvironment(context: HookContext): Record<string, string> {
  // The user's environment, as Claude Code gives its hooks, but nothing that names orca's own state (its Redis, its home).
  const env = withoutOrcaState(process.env);
  Object.assign(env, context.env);
  env.CLAUDE_PROJECT_DIR = context.projectDir;
  env.ORCA_ROLE = context.role;
  return env;
}
