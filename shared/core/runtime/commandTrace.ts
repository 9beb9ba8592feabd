import { appendFileSync } from 'node:fs';

/**
 * Timestamps of one command's way through its run, for measuring it (`orca agent` beside its job's
 * start trace, startTrace.ts): with `ORCA_COMMAND_TRACE=FILE` the process appends one JSON line to
 * FILE as it exits, `{"command":…,"pid":…,"marks":[["step", ms since epoch], …]}`, the first mark
 * the process's own start; without the variable nothing is kept or written. A mark names the step
 * that just ended. One a process, reached from any module, since a command's steps span several.
 */
export class CommandTrace {
  private readonly marks: [string, number][] = [['process_start', performance.timeOrigin]];

  constructor(
    private readonly file: string,
    private readonly command: string,
  ) {}

  mark(step: string): void {
    this.marks.push([step, performance.timeOrigin + performance.now()]);
  }

  /** Writes the line once; later calls write nothing. */
  write(): void {
    if (this.marks.length === 0) return;
    appendFileSync(this.file, `${JSON.stringify({ command: this.command, pid: process.pid, marks: this.marks })}\n`);
    this.marks.length = 0;
  }
}

let current: CommandTrace | undefined;

/** Starts the process's trace when ORCA_COMMAND_TRACE names a file (written as the process exits); undefined otherwise. */
export function traceCommand(command: string, env: NodeJS.ProcessEnv = process.env): CommandTrace | undefined {
  const file = env.ORCA_COMMAND_TRACE;
  if (!file || current) return current;
  const trace = new CommandTrace(file, command);
  current = trace;
  process.once('exit', () => trace.write());
  return trace;
}

/** A mark on the process's trace, when there is one. */
export function commandMark(step: string): void {
  current?.mark(step);
}
