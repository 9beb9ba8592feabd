import type { AgentLimits } from '../../core/loop/limits.js';
import type { AgentSession } from '../../core/loop/session.js';
import { groupedNumber } from '../../core/text/groupedNumber.js';
import { loadDescription } from '../../core/tool/tool.js';
import { describeStatus, type GitSnapshot, readGitSnapshot, sameStatus, snapshotFromWatchStatus } from './gitSnapshot.js';

/** Near the end: the last turns, or the last tenth of the tokens, the money or the time. */
const NEAR_END_TURNS = 5;
const NEAR_END_SHARE = 0.1;
export const NEAR_END = loadDescription(import.meta.url, './nearEnd.md');

/**
 * The short note appended to the newest user message before each model call (from the second
 * turn): what is left of the budgets now (turns, tokens as the budget counts them, money, time),
 * near the end of any of them the word to run the checks and Report now (nearEnd.md), and the git
 * status when it differs from the one in the system prompt. It rides at the end of the request, after the cached prefix, and stays with its
 * message afterwards, so it never invalidates what was cached.
 */
export interface TurnFacts {
  turn: number;
  limits: AgentLimits;
  /** The tokens spent as the token budget counts them (AgentSession.tokensSpent). */
  tokensSpent: number;
  costUsd: number;
  elapsedMs: number;
  start: GitSnapshot;
  now: GitSnapshot;
}

export function turnReminderText(facts: TurnFacts): string {
  const { limits } = facts;
  const turnsLeft = Math.max(0, limits.maxTurns - facts.turn);
  const tokensLeft = Math.max(0, limits.maxTokens - facts.tokensSpent);
  const costLeft = Math.max(0, limits.maxCostUsd - facts.costUsd);
  const msLeft = Math.max(0, limits.wallClockMs - facts.elapsedMs);
  const minutesLeft = Math.floor(msLeft / 60_000);
  const lines = [
    `Turn ${facts.turn} of ${limits.maxTurns}. Left: ${turnsLeft} turns, ${groupedNumber(tokensLeft)} tokens, $${costLeft.toFixed(2)}, ${minutesLeft} min.`,
  ];
  const nearEnd =
    turnsLeft <= NEAR_END_TURNS ||
    tokensLeft <= limits.maxTokens * NEAR_END_SHARE ||
    costLeft <= limits.maxCostUsd * NEAR_END_SHARE ||
    msLeft <= limits.wallClockMs * NEAR_END_SHARE;
  if (nearEnd) lines.push(NEAR_END);
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
 * is a `git status` of the whole tree, and an Explore agent's turns are mostly reads. Where the
 * host's watch looked at the whole worktree after every call that may write (`lastLook`), its
 * look is that take: the same question asked of git once, not twice, per writing call.
 */
export class TurnReminders {
  private git: { snapshot: GitSnapshot; stale: boolean };

  constructor(
    private readonly start: GitSnapshot,
    private readonly options: {
      gitStatusEachTurn: boolean;
      othersMayWrite: boolean;
      /**
       * The watch's `git status` of the worktree after the last call that may write, if it still
       * tells the tree as it is (worktreeWatch.ts `lastStatus`); undefined: ask git.
       */
      lastLook?: () => string | undefined;
    },
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
      tokensSpent: session.tokensSpent(),
      costUsd: session.costUsd,
      elapsedMs: Date.now() - session.startedAt,
      start: this.start,
      now,
    });
  }

  private async currentGit(root: string): Promise<GitSnapshot> {
    if (this.git.stale || this.options.othersMayWrite) this.git = { snapshot: await this.takeGit(root), stale: false };
    return this.git.snapshot;
  }

  /**
   * The watch looks after every call that may write (and after every command), last of all
   * that runs around the call, so its look is the tree after the last such call. Not where hooks
   * may write: they also run outside calls (before this request, at a compaction), after the look.
   */
  private async takeGit(root: string): Promise<GitSnapshot> {
    const looked = this.options.othersMayWrite ? undefined : this.options.lastLook?.();
    return looked !== undefined ? snapshotFromWatchStatus(looked, this.start) : await readGitSnapshot(root);
  }
}
