/**
 * What Bash puts in `ToolOutput.data`. Typed here, below the tool, because those who read it
 * (check recording, claim checks, the verification nudge, hand-offs) sit in tiers that may not
 * import tools/.
 */
export interface BashResultData {
  exitCode: number | null;
  /** The signal that ended the command's shell, when one did. */
  signal: NodeJS.Signals | null;
  stdoutBytes: number;
  stderrBytes: number;
  /** The output kept in memory (all of it unless it outgrew it), trailing newlines dropped. */
  stdout: string;
  stderr: string;
  /** The whole stdout, when it outgrew memory. */
  outputFile?: string;
  /** The whole stderr, when it outgrew memory. */
  stderrFile?: string;
  /** The exit status of each stage of the command's last pipeline (the shell's PIPESTATUS), when the shell reached its end. */
  pipeStatus?: number[];
  /**
   * When the command is one pipeline (one simple command included): each stage as written, without
   * redirections of its own output (`2>&1`, `> log`), with its exit status. `npm test 2>&1 | tail`
   * is `[{npm test, 1}, {tail, 0}]`.
   */
  pipeline?: PipelineStage[];
}

export interface PipelineStage {
  command: string;
  exitCode: number;
}

/** The fields of a Bash result the host reads, each only when it is there and well-formed. */
export interface BashResultFields {
  exitCode?: number;
  signal?: string;
  outputFile?: string;
  stderrFile?: string;
  pipeline?: PipelineStage[];
}

/**
 * Reads a Bash call's data (a ledger entry's `data`, a tool output's). It is checked, not cast: a
 * call that was refused, timed out or aborted has none, and any tool may be registered under the name.
 */
export function bashResultFields(data: unknown): BashResultFields {
  if (typeof data !== 'object' || data === null) return {};
  const fields: BashResultFields = {};
  if ('exitCode' in data && typeof data.exitCode === 'number') fields.exitCode = data.exitCode;
  if ('signal' in data && typeof data.signal === 'string') fields.signal = data.signal;
  if ('outputFile' in data && typeof data.outputFile === 'string') fields.outputFile = data.outputFile;
  if ('stderrFile' in data && typeof data.stderrFile === 'string') fields.stderrFile = data.stderrFile;
  if ('pipeline' in data && Array.isArray(data.pipeline) && data.pipeline.length > 0 && data.pipeline.every(isStage)) {
    fields.pipeline = data.pipeline;
  }
  return fields;
}

function isStage(value: unknown): value is PipelineStage {
  if (typeof value !== 'object' || value === null) return false;
  const stage = value as Record<string, unknown>;
  return typeof stage.command === 'string' && typeof stage.exitCode === 'number';
}
