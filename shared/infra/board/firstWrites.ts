/** How many first writes a process remembers; past it, it forgets them all and sends them again. */
const REMEMBERED_MAX = 50_000;

/**
 * The board's first-seen writes this process has already made: a record's `created_at` (HSETNX)
 * and its place in the run list or a run's task list (ZADD NX). They change nothing after their
 * first success, yet every event of a record carries them (each entry's changes depend on that
 * entry alone): sent once per record and process instead of once per event, they are about 4 of
 * the 10 commands an agent's event costs Redis. A write is remembered only once its MULTI
 * succeeded; forgetting one (past the bound, or in a new process) only sends it again.
 */
export class FirstWrites {
  private readonly made = new Set<string>();

  /** Whether `key`'s first write of `member` is known to be made. */
  has(key: string, member: string): boolean {
    return this.made.has(`${key}\u0000${member}`);
  }

  /** Remembers first writes whose transaction succeeded. */
  remember(writes: ReadonlyArray<readonly [key: string, member: string]>): void {
    if (this.made.size + writes.length > REMEMBERED_MAX) this.made.clear();
    for (const [key, member] of writes) this.made.add(`${key}\u0000${member}`);
  }
}

/** This process's: every writer of the board in it shares what is already written. */
export const firstWrites = new FirstWrites();
