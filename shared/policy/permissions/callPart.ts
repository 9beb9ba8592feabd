import type { Workspace } from '../../core/files/workspace.js';
import type { PermissionMode } from '../../core/tool/permissionMode.js';
import type { ToolFacts } from '../../core/tool/toolFacts.js';
import type { RuleSubject } from './ruleMatch.js';

/**
 * One thing a call does that rules are checked against: the call itself for most tools; for a
 * shell command, each simple command, each file a redirection writes and each path a command
 * writes. A call is allowed by rules only when every part is.
 */
export interface CallPart {
  /** The tool rules are matched against (the shell's `writesAs`, Write, for a path a command writes). */
  tool: ToolFacts;
  subject: RuleSubject;
  /** How the part is shown in reasons: a command or a path. */
  label: string;
  /** The mode this part needs when no allow rule covers it. */
  level: PermissionMode;
  /** Set when only an allow rule that names the part will do (destructive commands, guarded paths). */
  needsNamedAllow?: { by: 'destructive' | 'guarded-path' | 'bash-analysis'; reason: string; example: string };
}

export interface CallParts {
  /** Set when the call is refused whatever the rules say: it writes outside the workspace, or cannot be analysed. */
  refusal?: { by: string; reason: string };
  parts: CallPart[];
  /** Checked against deny and ask rules only (the whole shell command, so `Bash(curl * | sh)` can deny). */
  denyOnly: CallPart[];
  /** What a permission prompt shows. */
  summary: string;
}

export interface PartsContext {
  workspace: Workspace;
  /** Folders outside the workspace Bash may write to (the sandbox's private /tmp). */
  writableOutside: string[];
  /** Level for a Bash command that is not read-only (workspace-write when it runs in the sandbox). */
  shellLevel: PermissionMode;
  /** Bash runs in the sandbox, which stops writes outside the worktree that the words of a command do not show. */
  sandboxed: boolean;
}
