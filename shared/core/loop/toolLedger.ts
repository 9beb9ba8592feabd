import type { ToolFacts } from '../tool/toolFacts.js';

/**
 * Every tool call a session made, with what came back: the host's own record, which compaction
 * cannot summarise away and which claims in a Report are checked against.
 */
export interface ToolLedgerEntry {
  turn: number;
  id: string;
  name: string;
  /**
   * The definition the call was made with, whose facts say what its result is (a file read, a
   * command's run…); absent for a name the session has no tool for.
   */
  tool?: ToolFacts;
  /** The input the tool ran with (after any hook rewrite). */
  input: unknown;
  isError: boolean;
  /** The tool's structured result (`ToolOutput.data`): Bash puts its exit code and log file here. */
  data?: unknown;
  /** Where an over-budget result was saved. */
  spilledTo?: string;
  at: number;
}

export class ToolLedger {
  private readonly entries: ToolLedgerEntry[] = [];

  record(entry: ToolLedgerEntry): void {
    this.entries.push(entry);
  }

  all(): readonly ToolLedgerEntry[] {
    return this.entries;
  }

  byName(name: string): ToolLedgerEntry[] {
    return this.entries.filter((entry) => entry.name === name);
  }
}
