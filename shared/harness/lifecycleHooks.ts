import type { AgentResult } from '../core/loop/query.js';
import type { AgentSession } from '../core/loop/session.js';
import type { HookContext } from '../policy/hooks/hookContext.js';
import { runHooks } from '../policy/hooks/hookRunner.js';
import type { HooksConfig } from '../policy/hooks/hooksConfig.js';
import { isModelFailure, stopFailureKind } from '../policy/hooks/stopFailure.js';
import { lastAssistantText } from '../policy/hooks/stopHooks.js';

/**
 * The hooks before the agent's first turn: SessionStart (and SubagentStart for one of a run's
 * agents, named `subagentId`) may add context, UserPromptSubmit may add context or refuse the
 * prompt (`refusal`, said as the session's end).
 */
export async function openingHooks(
  hooks: HooksConfig,
  { session, prompt, subagentId, context }: { session: AgentSession; prompt: string; subagentId?: string; context: HookContext },
): Promise<{ refusal?: string; additionalContext: string[] }> {
  const additionalContext: string[] = [];
  const start = await runHooks(hooks, 'SessionStart', { source: 'startup', model: session.model.id }, context);
  additionalContext.push(...start.additionalContext);
  if (subagentId !== undefined) {
    const sub = await runHooks(hooks, 'SubagentStart', { agent_id: subagentId, agent_type: session.role }, context);
    additionalContext.push(...sub.additionalContext);
  }
  const submit = await runHooks(hooks, 'UserPromptSubmit', { prompt }, context);
  if (submit.blocked || submit.stop)
    return { refusal: `a UserPromptSubmit hook refused the task: ${submit.reason ?? submit.stop ?? 'no reason given'}`, additionalContext };
  additionalContext.push(...submit.additionalContext);
  return { additionalContext };
}

/**
 * The hooks after the agent's last turn: StopFailure when the model failed it, then SessionEnd.
 * Both run whatever aborted the session: they get a signal of their own, never aborted.
 */
export async function closingHooks(hooks: HooksConfig, session: AgentSession, result: AgentResult, context: HookContext): Promise<void> {
  if (isModelFailure(result.reason, result.detail)) {
    const last = lastAssistantText(session);
    await runHooks(
      hooks,
      'StopFailure',
      {
        error: stopFailureKind(result.detail ?? ''),
        error_details: result.detail ?? '',
        ...(last !== undefined ? { last_assistant_message: last } : {}),
      },
      { ...context, signal: new AbortController().signal },
    );
  }
  await runHooks(
    hooks,
    'SessionEnd',
    // A run with its prompt given (`claude -p`) ends with `other` in Claude Code, however it ended.
    { reason: 'other' },
    { ...context, signal: new AbortController().signal },
  );
}
