import { z } from 'zod';
import { describeZodError } from '../../core/boundary/zodIssues.js';
import { EVENT_TRAITS, type HookEventName } from './hookEvents.js';

/** How one hook run ended, before its output is read. Command and http hooks both end in one. */
export type HookRawResult =
  | { kind: 'exited'; exitCode: number; stdout: string; stderr: string }
  | { kind: 'timeout'; timeoutMs: number; stdout: string; stderr: string }
  /** Could not run, was killed, or (http) answered with a non-2xx status. */
  | { kind: 'failed'; message: string; exitCode: number | null; stdout: string; stderr: string };

export interface HookRunOptions {
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  signal: AbortSignal;
  /** The sandbox a command hook runs in (`--sandbox required`); unset, it runs plainly. */
  wrap?: (command: string, cwd: string) => { file: string; args: string[] };
}

/**
 * One permission update entry (PermissionRequest's `updatedPermissions` and `permission_suggestions`),
 * in Claude Code's fields: `addRules`, `replaceRules`, `removeRules`, `setMode`, `addDirectories`,
 * `removeDirectories`, each with its `destination`.
 */
export const PermissionUpdateSchema = z.looseObject({
  type: z.string(),
  rules: z.array(z.looseObject({ toolName: z.string(), ruleContent: z.string().optional() })).optional(),
  behavior: z.enum(['allow', 'deny', 'ask']).optional(),
  mode: z.string().optional(),
  directories: z.array(z.string()).optional(),
  destination: z.string().optional(),
});
export type PermissionUpdate = z.infer<typeof PermissionUpdateSchema>;

/**
 * The JSON a hook may print on exit 0 (or an http hook answer), in Claude Code's fields. Unknown
 * fields are let through and named in the log: refusing the whole answer for a field added by a
 * later Claude Code would drop the fields that matter (a deny) along with it.
 */
export const HookOutputSchema = z.looseObject({
  continue: z.boolean().optional(),
  stopReason: z.string().optional(),
  suppressOutput: z.boolean().optional(),
  systemMessage: z.string().optional(),
  /** `block` where the event can block; `approve` is PreToolUse's older spelling of allow. */
  decision: z.enum(['block', 'approve']).optional(),
  reason: z.string().optional(),
  hookSpecificOutput: z
    .looseObject({
      hookEventName: z.string().optional(),
      permissionDecision: z.enum(['allow', 'deny', 'ask', 'defer']).optional(),
      permissionDecisionReason: z.string().optional(),
      updatedInput: z.record(z.string(), z.unknown()).optional(),
      additionalContext: z.string().optional(),
      /** PermissionRequest's answer. */
      decision: z
        .looseObject({
          behavior: z.enum(['allow', 'deny']),
          updatedInput: z.record(z.string(), z.unknown()).optional(),
          /** Allow only: permission update entries, as Claude Code's `permission_suggestions` give them. */
          updatedPermissions: z.array(PermissionUpdateSchema).optional(),
          message: z.string().optional(),
          interrupt: z.boolean().optional(),
        })
        .optional(),
      /** PermissionDenied: let the model try the call again. */
      retry: z.boolean().optional(),
      /** WorktreeCreate (http hooks): where the worktree was made. */
      worktreePath: z.string().optional(),
    })
    .optional(),
});
export type HookOutput = z.infer<typeof HookOutputSchema>;

const KNOWN_TOP = new Set(Object.keys(HookOutputSchema.shape));
const KNOWN_SPECIFIC = new Set(Object.keys(HookOutputSchema.shape.hookSpecificOutput.unwrap().shape));

/** What one hook run amounts to. */
export interface HookRunResult {
  /** The command line or URL. */
  label: string;
  outcome: 'ok' | 'block' | 'error' | 'timeout';
  exitCode: number | null;
  /** For the event log; never shown to the model. */
  detail?: string;
  /** This hook stops the action; the reason goes to the model. */
  block?: string;
  /** Shown to the model after the action (a PostToolUse hook's exit 2 or block). */
  feedback?: string;
  /** PreToolUse / PermissionRequest: allow or ask (a deny is a `block`). */
  decision?: 'allow' | 'ask';
  decisionReason?: string;
  updatedInput?: Record<string, unknown>;
  /** PermissionRequest's allow: permission update entries. */
  updatedPermissions?: PermissionUpdate[];
  additionalContext?: string;
  /** `continue: false`: the session stops, with this reason. */
  stop?: string;
  /** For the user (an event), not the model. */
  systemMessage?: string;
  retry?: boolean;
  worktreePath?: string;
}

const DETAIL_PART = 600;

/**
 * Reads one hook run by Claude Code's rules: exit 0 goes on and its JSON is honoured; exit 2
 * blocks where the event can be blocked, with stderr as the reason; any other exit, a timeout or
 * a failure to run is a non-blocking error, logged and not shown to the model, unless the hook
 * says `onFailure: "block"` (or the event is WorktreeCreate, where any failure blocks).
 */
export function interpretHookRun(
  event: HookEventName,
  label: string,
  raw: HookRawResult,
  options: { onFailure?: 'continue' | 'block' } = {},
): HookRunResult {
  const traits = EVENT_TRAITS[event];
  const failureBlocks = (options.onFailure === 'block' && traits.exit2 === 'block') || traits.anyFailureBlocks === true;
  const exitCode = raw.kind === 'timeout' ? null : raw.exitCode;

  if (raw.kind !== 'exited' || (raw.exitCode !== 0 && raw.exitCode !== 2)) {
    const why =
      raw.kind === 'timeout'
        ? `timed out after ${raw.timeoutMs / 1000} s; its process group was killed`
        : raw.kind === 'failed'
          ? raw.message
          : `exited with code ${raw.exitCode}`;
    const result: HookRunResult = {
      label,
      outcome: raw.kind === 'timeout' ? 'timeout' : 'error',
      exitCode,
      detail: joinDetail([why, excerpt('stderr', raw.stderr), excerpt('stdout', raw.stdout)]),
    };
    if (failureBlocks) result.block = `the hook ${label} failed (${why}) and a failed ${event} hook blocks${stderrSuffix(raw.stderr)}`;
    return result;
  }

  if (raw.exitCode === 2) {
    const message = raw.stderr.trim() || `the hook ${label} exited with code 2 without a message on stderr`;
    if (traits.exit2 === 'block') return { label, outcome: 'block', exitCode: 2, block: message, detail: excerpt('stderr', raw.stderr) };
    if (traits.exit2 === 'feedback')
      return { label, outcome: 'block', exitCode: 2, feedback: message, detail: excerpt('stderr', raw.stderr) };
    return {
      label,
      outcome: 'error',
      exitCode: 2,
      detail: joinDetail([`exit code 2 cannot block ${event}`, excerpt('stderr', raw.stderr)]),
    };
  }

  const stdout = raw.stdout.trim();
  if (!stdout.startsWith('{')) {
    const result: HookRunResult = {
      label,
      outcome: 'ok',
      exitCode: 0,
      detail: joinDetail([excerpt('stdout', stdout), excerpt('stderr', raw.stderr)]),
    };
    if (stdout !== '' && traits.plainStdoutIsContext) result.additionalContext = stdout;
    if (stdout !== '' && event === 'WorktreeCreate') result.worktreePath = stdout;
    return result;
  }

  let json: unknown;
  try {
    json = JSON.parse(stdout);
  } catch (error) {
    return invalidOutput(
      event,
      label,
      `its stdout starts with "{" but is not valid JSON (${(error as Error).message})`,
      stdout,
      failureBlocks,
    );
  }
  const parsed = HookOutputSchema.safeParse(json);
  if (!parsed.success) return invalidOutput(event, label, describeZodError(parsed.error, 'its JSON output'), stdout, failureBlocks);
  const output = parsed.data;
  const specific = output.hookSpecificOutput;
  if (specific?.hookEventName !== undefined && specific.hookEventName !== event) {
    return invalidOutput(
      event,
      label,
      `hookSpecificOutput.hookEventName is ${JSON.stringify(specific.hookEventName)} but the hook ran for ${event}`,
      stdout,
      failureBlocks,
    );
  }
  return fromJson(event, label, output, output.suppressOutput ? undefined : stdout);
}

function fromJson(event: HookEventName, label: string, output: HookOutput, shownStdout: string | undefined): HookRunResult {
  const traits = EVENT_TRAITS[event];
  const specific = output.hookSpecificOutput;
  const result: HookRunResult = { label, outcome: 'ok', exitCode: 0 };
  const ignored: string[] = [
    ...Object.keys(output).filter((key) => !KNOWN_TOP.has(key)),
    ...Object.keys(specific ?? {})
      .filter((key) => !KNOWN_SPECIFIC.has(key))
      .map((key) => `hookSpecificOutput.${key}`),
  ];
  const notFor = (field: string) => ignored.push(`${field} (not used by ${event})`);

  if (output.continue === false) {
    result.stop = output.stopReason ?? `the hook ${label} stopped the session (continue: false)`;
    result.outcome = 'block';
  }
  if (output.systemMessage) result.systemMessage = output.systemMessage;
  if (specific?.additionalContext) result.additionalContext = specific.additionalContext;

  if (event === 'PreToolUse') {
    // permissionDecision wins over the older top-level decision, as in Claude Code.
    const decision =
      specific?.permissionDecision ?? (output.decision === 'block' ? 'deny' : output.decision === 'approve' ? 'allow' : undefined);
    const reason = specific?.permissionDecisionReason ?? output.reason;
    if (decision === 'deny') {
      result.block = reason ?? `the hook ${label} denied the call without a reason`;
      result.outcome = 'block';
    } else if (decision !== undefined) {
      // orca has no deferred mode: a deferral goes to whoever would be asked.
      result.decision = decision === 'defer' ? 'ask' : decision;
      if (reason !== undefined) result.decisionReason = reason;
    }
    if (specific?.updatedInput) result.updatedInput = specific.updatedInput;
  } else {
    if (specific?.permissionDecision !== undefined) notFor('hookSpecificOutput.permissionDecision');
    if (specific?.updatedInput !== undefined) notFor('hookSpecificOutput.updatedInput');
    if (output.decision === 'block') {
      const reason = output.reason ?? `the hook ${label} blocked without a reason`;
      if (traits.exit2 === 'block') result.block = reason;
      else if (traits.exit2 === 'feedback') result.feedback = reason;
      else notFor('decision');
      if (traits.exit2 !== 'none') result.outcome = 'block';
    } else if (output.decision === 'approve') {
      notFor('decision "approve"');
    }
  }

  if (specific?.decision !== undefined) {
    if (event !== 'PermissionRequest') notFor('hookSpecificOutput.decision');
    else if (specific.decision.behavior === 'deny') {
      result.block = specific.decision.message ?? `the hook ${label} denied the permission without a message`;
      result.outcome = 'block';
      if (specific.decision.interrupt) result.stop ??= result.block;
    } else {
      result.decision = 'allow';
      if (specific.decision.updatedInput) result.updatedInput = specific.decision.updatedInput;
      if (specific.decision.updatedPermissions) result.updatedPermissions = specific.decision.updatedPermissions;
    }
  }
  if (specific?.retry !== undefined) {
    if (event === 'PermissionDenied') result.retry = specific.retry;
    else notFor('hookSpecificOutput.retry');
  }
  if (specific?.worktreePath !== undefined) {
    if (event === 'WorktreeCreate') result.worktreePath = specific.worktreePath;
    else notFor('hookSpecificOutput.worktreePath');
  }

  const detail = joinDetail([
    result.block && `blocked: ${result.block}`,
    result.stop && `stop: ${result.stop}`,
    ignored.length > 0 ? `ignored: ${ignored.join(', ')}` : undefined,
    shownStdout !== undefined ? excerpt('stdout', shownStdout) : undefined,
  ]);
  if (detail) result.detail = detail;
  return result;
}

function invalidOutput(event: HookEventName, label: string, why: string, stdout: string, failureBlocks: boolean): HookRunResult {
  const result: HookRunResult = { label, outcome: 'error', exitCode: 0, detail: joinDetail([why, excerpt('stdout', stdout)]) };
  if (failureBlocks) result.block = `the hook ${label} gave output orca cannot read (${why}) and a failed ${event} hook blocks`;
  return result;
}

function excerpt(name: string, text: string): string | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  return `${name}: ${trimmed.length > DETAIL_PART ? `${trimmed.slice(0, DETAIL_PART)}…` : trimmed}`;
}

function stderrSuffix(stderr: string): string {
  const trimmed = stderr.trim();
  return trimmed === '' ? '' : `: ${trimmed}`;
}

function joinDetail(parts: (string | undefined | false)[]): string | undefined {
  const kept = parts.filter((part): part is string => typeof part === 'string' && part !== '');
  return kept.length > 0 ? kept.join(' | ') : undefined;
}
