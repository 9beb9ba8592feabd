import { isDeepStrictEqual } from 'node:util';
import type { HookEventName } from './hookEvents.js';
import type { HookRunResult, PermissionUpdate } from './hookOutput.js';

/** What all the hooks of one event said, together. The caller acts on the fields its event uses. */
export interface HookOutcome {
  event: HookEventName;
  /** One per hook that ran, in settings order. */
  results: HookRunResult[];
  /** Some hook stops the action: exit 2, a block or deny, a failure that blocks. */
  blocked: boolean;
  /** Every blocking hook's reason, one per line: what the model reads. */
  reason?: string;
  /** PreToolUse / PermissionRequest, merged: deny beats ask beats allow. */
  decision?: 'allow' | 'ask' | 'deny';
  decisionReason?: string;
  updatedInput?: Record<string, unknown>;
  /** PermissionRequest's allow: the permission updates of the hooks that allowed, in settings order. */
  updatedPermissions: PermissionUpdate[];
  /** For the model's next turn, in settings order. */
  additionalContext: string[];
  /** For the model, after the action (PostToolUse). */
  feedback?: string;
  /** Some hook said `continue: false`: the session stops, with this reason. */
  stop?: string;
  systemMessages: string[];
  retry: boolean;
  worktreePath?: string;
}

export function emptyOutcome(event: HookEventName): HookOutcome {
  return { event, results: [], blocked: false, updatedPermissions: [], additionalContext: [], systemMessages: [], retry: false };
}

/**
 * Merges hooks that ran in parallel. Any block blocks; deny beats ask beats allow; any
 * `continue: false` stops; contexts, feedback and reasons are all kept.
 *
 * A rewritten input (`updatedInput`) is taken from the hooks whose decision won, or that rewrote
 * without deciding. Parallel hooks have no order to break a tie with, so when two of them rewrite
 * the input differently the call is denied, saying which hooks disagree, rather than one
 * rewrite silently winning.
 */
export function mergeHookResults(event: HookEventName, results: HookRunResult[]): HookOutcome {
  const outcome = emptyOutcome(event);
  outcome.results = results;
  const blocks = results.filter((r) => r.block !== undefined);
  const lines = (rs: HookRunResult[], pick: (r: HookRunResult) => string | undefined) =>
    rs.map(pick).filter((text): text is string => text !== undefined && text !== '');

  for (const result of results) {
    if (result.additionalContext) outcome.additionalContext.push(result.additionalContext);
    if (result.systemMessage) outcome.systemMessages.push(result.systemMessage);
    if (result.retry) outcome.retry = true;
    if (result.worktreePath !== undefined) outcome.worktreePath ??= result.worktreePath;
  }
  const feedback = lines(results, (r) => r.feedback);
  if (feedback.length > 0) outcome.feedback = feedback.join('\n');
  const stops = lines(results, (r) => r.stop);
  if (stops.length > 0) outcome.stop = stops.join('\n');

  if (blocks.length > 0) {
    outcome.blocked = true;
    outcome.reason = lines(blocks, (r) => r.block).join('\n');
    outcome.decision = 'deny';
    outcome.decisionReason = outcome.reason;
    return outcome;
  }

  const asks = results.filter((r) => r.decision === 'ask');
  const allows = results.filter((r) => r.decision === 'allow');
  const deciders = asks.length > 0 ? asks : allows;
  if (deciders.length > 0) {
    outcome.decision = asks.length > 0 ? 'ask' : 'allow';
    const reasons = lines(deciders, (r) => r.decisionReason);
    if (reasons.length > 0) outcome.decisionReason = reasons.join('\n');
    if (outcome.decision === 'allow') outcome.updatedPermissions = deciders.flatMap((r) => r.updatedPermissions ?? []);
  }

  const rewriters = results.filter((r) => r.updatedInput !== undefined && (r.decision === undefined || r.decision === outcome.decision));
  const first = rewriters[0];
  if (first) {
    const disagreeing = rewriters.filter((r) => !isDeepStrictEqual(r.updatedInput, first.updatedInput));
    if (disagreeing.length > 0) {
      outcome.blocked = true;
      outcome.decision = 'deny';
      outcome.reason = `${event} hooks rewrote the input in different ways (${[first, ...disagreeing].map((r) => r.label).join('; ')}); orca will not pick one of them`;
      outcome.decisionReason = outcome.reason;
      return outcome;
    }
    outcome.updatedInput = first.updatedInput;
  }
  return outcome;
}
