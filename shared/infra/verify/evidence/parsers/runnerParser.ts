/** The contract of one test runner's output parser, and what it finds. */

/** What one runner's output says: how many tests passed, failed, were skipped or left todo. */
export interface RunnerCounts {
  runner: string;
  passed: number;
  failed: number;
  skipped: number;
  todo: number;
}

/** The runner's output was recognised, but it does not give counts (e.g. `go test` without -v). */
export interface RunnerWithoutCounts {
  runner: string;
  unknown: string;
}

export interface RunnerParser {
  runner: string;
  /** A generic format (TAP) that specific runners also print: used only when no specific parser matched. */
  generic?: boolean;
  /** Counts from the output (colours already stripped), or undefined when this runner did not write it. */
  parse(text: string): RunnerCounts | RunnerWithoutCounts | undefined;
}
