import { runCommandHook } from './commandHook.js';
import { type HookContext, hookEnvironment } from './hookContext.js';
import { EVENT_TRAITS, type HookEventName } from './hookEvents.js';
import { buildHookInput, type HookPayloads, matchValue } from './hookInput.js';
import { emptyOutcome, type HookOutcome, mergeHookResults } from './hookOutcome.js';
import { type HookRawResult, type HookRunResult, interpretHookRun } from './hookOutput.js';
import { type HookHandler, type HooksConfig, hookLabel } from './hooksConfig.js';
import { runHttpHook } from './httpHook.js';

/** Seconds a hook may run when its settings give no `timeout`. */
export const DEFAULT_HOOK_TIMEOUT_S = 60;

/**
 * Fires one event: every hook whose group matches runs, all at once, each on the same input
 * JSON; their answers are merged (see mergeHookResults). Any layer calls this for its events:
 * the tool pipeline for PreToolUse/PostToolUse, the context layer for PreCompact/PostCompact, the
 * worker for WorktreeCreate/WorktreeRemove, the task list for TaskCreated/TaskCompleted.
 * Every hook run is a `hook` event; a hook's systemMessage is a `notice`.
 */
export async function runHooks<E extends HookEventName>(
  config: HooksConfig,
  event: E,
  payload: HookPayloads[E],
  context: HookContext,
): Promise<HookOutcome> {
  const handlers = matchingHooks(config, event, payload as Record<string, unknown>);
  if (handlers.length === 0) return emptyOutcome(event);
  context.syncTranscript?.();

  const input = buildHookInput(
    event,
    {
      sessionId: context.sessionId,
      transcriptPath: context.transcriptPath,
      cwd: context.cwd,
      mode: context.mode,
      claudeMode: context.claudeMode,
      agentType: context.role,
      agentId: context.agentId,
      promptId: context.promptId,
      effort: context.effort,
    },
    payload,
  );
  const inputJson = JSON.stringify(input);
  const env = hookEnvironment(context);
  const results = await Promise.all(
    handlers.map(async (hook): Promise<HookRunResult> => {
      const label = hookLabel(hook);
      const options = {
        cwd: context.projectDir,
        env,
        timeoutMs: (hook.timeout ?? DEFAULT_HOOK_TIMEOUT_S) * 1000,
        signal: context.signal,
        wrap: context.wrap,
      };
      const raw: HookRawResult =
        hook.type === 'command' ? await runCommandHook(hook, inputJson, options) : await runHttpHook(hook, inputJson, options);
      const result = interpretHookRun(event, label, raw, { onFailure: hook.onFailure });
      context.emit({
        type: 'hook',
        event,
        command: label,
        outcome: result.outcome,
        // An http hook has no exit code; its status is in the detail when it matters.
        exit_code: hook.type === 'http' ? null : result.exitCode,
        ...(result.detail !== undefined ? { detail: result.detail } : {}),
      });
      if (result.systemMessage) context.emit({ type: 'notice', level: 'info', message: `${event} hook ${label}: ${result.systemMessage}` });
      return result;
    }),
  );
  return mergeHookResults(event, results);
}

/**
 * The hooks an event runs with this payload, in settings order. A handler that appears in several
 * matching groups (or settings files) runs once, as in Claude Code.
 */
export function matchingHooks(config: HooksConfig, event: HookEventName, payload: Record<string, unknown>): HookHandler[] {
  const field = EVENT_TRAITS[event].matchOn;
  const value = matchValue(payload, field);
  const seen = new Set<string>();
  const handlers: HookHandler[] = [];
  for (const group of config.byEvent[event] ?? []) {
    // Events without a match field ignore matchers, as Claude Code does.
    if (field !== undefined && !group.matches(value)) continue;
    for (const hook of group.hooks) {
      const key = `${hook.type}\u0000${hookLabel(hook)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      handlers.push(hook);
    }
  }
  return handlers;
}
