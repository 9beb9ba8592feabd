import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import type { AgentEventInput } from '../events/agentEvent.js';
import type { ReadFileState } from '../files/readFileState.js';
import type { Workspace } from '../files/workspace.js';
import type { ToolResultImage } from '../model/message.js';
import type { ShellCommandWrap } from '../runtime/processGroup.js';
import type { PermissionMode } from './permissionMode.js';
import type { ToolFacts } from './toolFacts.js';

/** What a tool returns on success; a refusal is thrown as a ToolError instead. */
export interface ToolOutput {
  content: string;
  /** Images the result carries besides its text (an MCP tool's), sent after it in the tool_result. */
  images?: ToolResultImage[];
  /** Structured data for the host (hooks' tool_response, evidence), never shown to the model. */
  data?: unknown;
}

/** Where the session keeps its files (spilled results, transcripts, scratch). */
export interface SessionInfo {
  id: string;
  role: string;
  dir: string;
}

/** Options for shell commands the session runs. */
export interface ShellSettings {
  /** Extra environment for every command: PORT, ORCA_PORTS, ORCA_RUN_ID, … */
  env: Record<string, string>;
  /** Default and ceiling for Bash timeouts, in ms. */
  defaultTimeoutMs: number;
  maxTimeoutMs: number;
  /**
   * Wraps a command for the sandbox (filled by the permissions layer), or runs it plainly. Asked
   * for an `infoFd`, a sandbox with a pid namespace (bwrap) names its init there and says so in
   * the result's `infoFd` (spawnShellGroup gives it open); one without ignores it.
   */
  wrap?: ShellCommandWrap;
  /** Wraps a command hook the same way, under `--sandbox required` only (hooks otherwise run as Claude Code runs them). */
  hookWrap?: (command: string, cwd: string) => { file: string; args: string[] };
}

/**
 * What a session's tools reach besides their context: the task list, the check recorder, the skill
 * library, the hooks. Empty here: each layer that provides a service adds its field where the
 * service is defined (`declare module '…/core/tool/tool.js' { interface SessionServices { … } }`),
 * so the core names no layer above it and every read is typed.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging in the layers above.
export interface SessionServices {}

/**
 * Everything a tool may use, passed to every call. Nothing here is global: two sessions in one
 * process never share a workspace, file state or signal.
 */
export interface ToolContext {
  workspace: Workspace;
  fileState: ReadFileState;
  signal: AbortSignal;
  session: SessionInfo;
  shell: ShellSettings;
  mode: PermissionMode;
  emit(event: AgentEventInput): void;
  /** Services later layers attach (task list, check recorder, skills, hooks), owned by the session. */
  services: SessionServices;
}

/**
 * A tool, defined once. The JSON Schema the model sees is generated from `input`; `level` is the
 * permission mode the call needs; `readOnly` says whether it changes anything; what else orca
 * knows about it are its facts (toolFacts.ts), declared here with it.
 */
export interface Tool<S extends z.ZodType = z.ZodType> extends ToolFacts {
  description: string;
  input: S;
  /**
   * The JSON Schema the model is sent, when it is not generated from `input` (an MCP tool's, as
   * its server wrote it; `input` is then built from it).
   */
  inputJsonSchema?: Record<string, unknown>;
  level: PermissionMode | ((input: z.infer<S>) => PermissionMode);
  readOnly: boolean | ((input: z.infer<S>) => boolean);
  /** Characters of result kept inline before it is spilled to a file (default 30,000). */
  resultLimit?: number;
  /** Checks that need the context but change nothing; returns a refusal message or undefined. */
  validate?(input: z.infer<S>, ctx: ToolContext): string | undefined | Promise<string | undefined>;
  call(input: z.infer<S>, ctx: ToolContext): Promise<ToolOutput>;
}

export type AnyTool = Tool<z.ZodType>;

export function defineTool<S extends z.ZodType>(tool: Tool<S>): Tool<S> {
  return tool;
}

/** The model-facing description that lives in a text file beside the tool. */
export function loadDescription(moduleUrl: string, file: string): string {
  return readFileSync(new URL(file, moduleUrl), 'utf8').trim();
}

export function levelOf<S extends z.ZodType>(tool: Tool<S>, input: z.infer<S>): PermissionMode {
  return typeof tool.level === 'function' ? tool.level(input) : tool.level;
}

export function isReadOnly<S extends z.ZodType>(tool: Tool<S>, input: z.infer<S>): boolean {
  return typeof tool.readOnly === 'function' ? tool.readOnly(input) : tool.readOnly;
}
