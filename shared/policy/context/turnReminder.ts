import type { AgentLimits } from '../../core/loop/limits.js';
import { totalInputTokens, type Usage } from '../../core/model/usage.js';
import { describeStatus, sameStatus, type GitSnapshot } from './gitSnapshot.js';

/**
 * The short note appended to the newest user message before each model call (from the second
 * turn): what is left of the budgets now, and the git status when it differs from the one in the
 * system prompt. It rides at the end of the request, after the cached prefix, and stays with its
 * message afterwards, so it never invalidates what was cached.
 */
export interface TurnFacts {
  turn: number;
  limits: AgentLimits;
  usage: Usage;
  costUsd: number;
  elapsedMs: number;
  start: GitSnapshot;
  now: GitSnapshot;
}

export function turnReminderText(facts: TurnFacts): string {
  const { limits } = facts;
  const tokensLeft = Math.max(0, limits.maxTokens - totalInputTokens(facts.usage) - facts.usage.output_tokens);
  const costLeft = Math.max(0, limits.maxCostUsd - facts.costUsd);
  const minutesLeft = Math.max(0, Math.floor((limits.wallClockMs - facts.elapsedMs) / 60_000));
  const lines = [
    `Turn ${facts.turn} of ${limits.maxTurns}. Left: ${tokensLeft.toLocaleString('en-US')} tokens, $${costLeft.toFixed(2)}, ${minutesLeft} min.`,
  ];
  if (!sameStatus(facts.start, facts.now) && facts.now.kind === 'repo') {
    lines.push(`Git status now (changed since the session started), branch ${facts.now.branch} at ${facts.now.head}:\n${describeStatus(facts.now.status)}`);
  }
  return `<system-reminder>\n${lines.join('\n')}\n</system-reminder>`;
}
