import { appendFileSync } from 'node:fs';

/**
 * Timestamps of one job's way to its agent, step by step, for measuring that way (the start
 * benchmark reads them): with `ORCA_START_TRACE=FILE` each job appends one JSON line to FILE,
 * `{"task":…,"marks":[["step", ms since epoch], …]}`; without it nothing is kept or written.
 * A mark names the step that just ended.
 */
export class StartTrace {
  private readonly marks: [string, number][] = [];

  private constructor(
    private readonly file: string,
    private readonly task: string,
  ) {}

  /** A trace for one job when ORCA_START_TRACE names a file; undefined (nothing measured) otherwise. */
  static forJob(task: string, env: NodeJS.ProcessEnv = process.env): StartTrace | undefined {
    const file = env.ORCA_START_TRACE;
    return file ? new StartTrace(file, task) : undefined;
  }

  mark(step: string): void {
    this.marks.push([step, performance.timeOrigin + performance.now()]);
  }

  /** Writes the job's line once; later calls write nothing. */
  write(): void {
    if (this.marks.length === 0) return;
    appendFileSync(this.file, `${JSON.stringify({ task: this.task, marks: this.marks })}\n`);
    this.marks.length = 0;
  }
}
