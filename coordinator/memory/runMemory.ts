import { localDay } from '../../shared/context/memory/card.js';
import { claudeCodeMemoryDir, readClaudeCodeMemory } from '../../shared/context/memory/claudeCodeMemory.js';
import { type Filed, fileCard } from '../../shared/context/memory/fileCard.js';
import { MemoryStore } from '../../shared/context/memory/memoryStore.js';
import { type RepoIdentity, repoIdentity } from '../../shared/context/memory/repoScope.js';
import { type Candidate, chooseCards, DEFAULT_MAX_CARDS } from '../../shared/context/memory/retrieval.js';
import type { JobMemory, RememberedCard } from '../../shared/infra/queue/memoryPayload.js';
import { userClaudeDir } from '../../shared/policy/settings/loadSettings.js';

export interface RunMemoryOptions {
  /** ORCA_HOME: the store is its `memory/` folder. */
  orcaHome: string;
  /** The user's repository (any worktree of it). */
  repo: string;
  /** When the run began: relative dates in new cards resolve against this day. */
  startedAt: number;
  /** The user's Claude folder (its projects/<project>/memory/ is read); default as for settings. */
  claudeDir?: string;
  maxCards?: number;
}

/**
 * A run's side of memory (docs/memory.md), on the coordinator's host, where the store is: the
 * candidates read once when the run starts (the store's cards of the run's project and of the
 * user, and Claude Code's memory of the repository), the cards chosen for each job's prompt,
 * and the filing of what agents remembered when their jobs come back.
 */
export class RunMemory {
  readonly scope: string;
  readonly today: string;
  /** Files that could not be read, one line each, for the person watching. */
  readonly problems: string[];
  readonly claudeCodeDir?: string;
  private readonly store: MemoryStore;
  private readonly candidates: Candidate[];
  private readonly maxCards: number;

  /** The run's memory, its repository's identity asked of git without blocking (it is read while Redis is reached). */
  static async open(options: RunMemoryOptions): Promise<RunMemory> {
    return new RunMemory(options, await repoIdentity(options.repo));
  }

  private constructor(options: RunMemoryOptions, identity: RepoIdentity) {
    this.scope = identity.scope;
    this.today = localDay(new Date(options.startedAt));
    this.store = MemoryStore.inHome(options.orcaHome);
    this.maxCards = options.maxCards ?? DEFAULT_MAX_CARDS;
    const kept = this.store.load([this.scope, 'user']);
    this.problems = [...kept.problems];
    this.candidates = kept.cards.map(({ card }) => ({ ...card, origin: 'orca' as const }));
    this.claudeCodeDir = claudeCodeMemoryDir(options.claudeDir ?? userClaudeDir(), identity.mainRoot);
    if (this.claudeCodeDir) {
      const claude = readClaudeCodeMemory(this.claudeCodeDir, this.scope);
      this.candidates.push(...claude.cards);
      this.problems.push(...claude.problems);
    }
  }

  /** The memory part of a job whose agent gets `prompt`. */
  forPrompt(prompt: string): JobMemory {
    return { scope: this.scope, today: this.today, cards: chooseCards(this.candidates, prompt, { scope: this.scope, max: this.maxCards }) };
  }

  /** Files the cards a job's agent remembered, in order; what became of each, as `describeFiled` says it. */
  async file(cards: readonly RememberedCard[]): Promise<Filed[]> {
    const out: Filed[] = [];
    for (const card of cards) out.push(await fileCard(this.store, card, { today: this.today }));
    return out;
  }
}
