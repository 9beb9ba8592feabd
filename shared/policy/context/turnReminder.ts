import type { AgentLimits } from '../../core/loop/limits.js';
import type { AgentSession } from '../../core/loop/session.js';
import { totalInputTokens, type Usage } from '../../core/model/usage.js';
import { describeStatus, type GitSnapshot, readGitSnapshot, sameStatus } from './gitSnapshot.js';

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
    lines.push(
      `Git status now (changed since the session started), branch ${facts.now.branch} at ${facts.now.head}:\n${describeStatus(facts.now.status)}`,
    );
  }
  return `<system-reminder>\n${lines.join('\n')}\n</system-reminder>`;
}

/**
 * The reminders of one session. The git state is taken again only when something may have
 * changed the files since the last take (a tool call that may write, or hooks), since each take
 * is a `git status` of the whole tree, and an Explore agent's turns are mostly reads.
 */
export class TurnReminders {
  private git: { snapshot: GitSnapshot; stale: boolean };

  constructor(
    private readonly start: GitSnapshot,
    private readonly options: { gitStatusEachTurn: boolean; othersMayWrite: boolean },
  ) {
    this.git = { snapshot: start, stale: false };
  }

  /** A tool call that may write ran: the next reminder takes git status again. */
  filesMayHaveChanged(): void {
    this.git.stale = true;
  }

  /** The reminder for the session as it is now. */
  async textFor(session: AgentSession): Promise<string> {
    const now = this.options.gitStatusEachTurn ? await this.currentGit(session.workspace.root) : this.start;
    return turnReminderText({
      turn: session.turns,
      limits: session.limits,
      usage: session.usage,
      costUsd: session.costUsd,
      elapsedMs: Date.now() - session.startedAt,
      start: this.start,
      now,
    });
  }

  private async currentGit(root: string): Promise<GitSnapshot> {
    if (this.git.stale || this.options.othersMayWrite) this.git = { snapshot: await readGitSnapshot(root), stale: false };
    return this.git.snapshot;
  }
}
