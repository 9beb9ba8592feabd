import type { AgentSession, StopCheck } from '../../core/loop/session.js';

/**
 * Several stop checks as one (the Stop hooks and the verification nudge): each runs, in order,
 * every time the agent is about to end; if any says go on, the agent goes on, reading every
 * message given, one after the other. Each check keeps its own count of reminders, so each
 * stays bounded on its own.
 */
export function chainStopChecks(...checks: Array<StopCheck | undefined>): StopCheck {
  const present = checks.filter((check): check is StopCheck => check !== undefined);
  return {
    async beforeStop(session: AgentSession, info) {
      const messages: string[] = [];
      for (const check of present) {
        const message = await check.beforeStop(session, info);
        if (message !== undefined && message.trim() !== '') messages.push(message);
      }
      return messages.length > 0 ? messages.join('\n\n') : undefined;
    },
  };
}
