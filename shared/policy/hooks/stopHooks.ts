import type { AgentSession, StopCheck } from '../../core/loop/session.js';
import { textOf } from '../../core/model/message.js';
import { hookContextFor } from './hookContext.js';
import { runHooks } from './hookRunner.js';
import type { HooksConfig } from './hooksConfig.js';

/** Stop blocks honoured in a row; the next one lets the agent stop, so a hook cannot keep it forever. */
export const STOP_BLOCK_LIMIT = 8;

export interface StopHooksOptions {
  /** `Stop` for an agent on its own (orca's workers, like `claude --agent`), `SubagentStop` for a sub-agent. */
  event?: 'Stop' | 'SubagentStop';
  limit?: number;
}

/**
 * Runs the Stop (or SubagentStop) hooks when the agent is about to end. Exit 2 or
 * `decision: "block"` makes it go on, with the hook's reason as the next user message, and
 * `stop_hook_active` is true from then on until a stop goes through (as in Claude Code, where
 * it stays true through the tool calls of the continuation). After `limit` blocks in a row the
 * stop goes through anyway, with a notice saying so.
 */
export function createStopCheck(hooks: HooksConfig, options: StopHooksOptions = {}): StopCheck {
  const event = options.event ?? 'Stop';
  const limit = options.limit ?? STOP_BLOCK_LIMIT;
  let blocksInARow = 0;

  const letStop = () => {
    blocksInARow = 0;
    return undefined;
  };

  return {
    async beforeStop(session: AgentSession, info) {
      const ctx = session.toolContext;
      const active = info.active || blocksInARow > 0;
      const last = lastAssistantText(session) ?? reportText(info.report);
      const context = hookContextFor(ctx);
      const outcome =
        event === 'Stop'
          ? await runHooks(
              hooks,
              'Stop',
              {
                stop_hook_active: active,
                ...(last !== undefined ? { last_assistant_message: last } : {}),
                background_tasks: [],
                session_crons: [],
              },
              context,
            )
          : await runHooks(
              hooks,
              'SubagentStop',
              {
                stop_hook_active: active,
                agent_id: session.id,
                agent_type: session.role,
                agent_transcript_path: context.transcriptPath,
                ...(last !== undefined ? { last_assistant_message: last } : {}),
              },
              context,
            );

      if (outcome.stop !== undefined) {
        // continue: false wins over a block: the agent stops, which is what it was doing.
        ctx.emit({ type: 'notice', level: 'info', message: `a ${event} hook ended the session: ${outcome.stop}` });
        return letStop();
      }
      if (!outcome.blocked) return letStop();
      if (blocksInARow >= limit) {
        ctx.emit({
          type: 'notice',
          level: 'warn',
          message: `${event} hooks blocked the agent from stopping ${limit} times in a row; letting it stop now. The last reason: ${outcome.reason ?? ''}`,
        });
        return letStop();
      }
      blocksInARow += 1;
      return `${event} hook feedback (you may not stop yet):\n${outcome.reason ?? ''}`;
    },
  };
}

export function lastAssistantText(session: AgentSession): string | undefined {
  for (let i = session.messages.length - 1; i >= 0; i -= 1) {
    const message = session.messages[i]!;
    if (message.role === 'assistant') {
      const text = textOf(message);
      return text === '' ? undefined : text;
    }
  }
  return undefined;
}

/**
 * The final answer of an agent that ended with a Report and no text: in Claude Code the final
 * answer is the assistant's message, so the Report's summary (or the whole Report) stands in.
 */
function reportText(report: unknown): string | undefined {
  if (report === undefined) return undefined;
  if (typeof report === 'object' && report !== null && typeof (report as { summary?: unknown }).summary === 'string')
    return (report as { summary: string }).summary;
  return JSON.stringify(report);
}
