import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { StartTrace } from '../../shared/core/runtime/startTrace.js';
import { tempDir } from '../support/tempDir.js';

describe("a job's start trace (ORCA_START_TRACE)", () => {
  it('is nothing without the variable', () => {
    expect(StartTrace.forJob('t1', {})).toBeUndefined();
  });

  it('appends one line a job, its steps in order with their times, written once', () => {
    const file = path.join(tempDir('orca-start-trace-'), 'marks.jsonl');
    for (const task of ['t1', 't2']) {
      const trace = StartTrace.forJob(task, { ORCA_START_TRACE: file })!;
      trace.mark('picked');
      trace.mark('workspace');
      trace.write();
      trace.write();
    }
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { task: string; marks: [string, number][] });
    expect(lines.map((line) => line.task)).toEqual(['t1', 't2']);
    for (const { marks } of lines) {
      expect(marks.map(([step]) => step)).toEqual(['picked', 'workspace']);
      expect(marks[1]![1]).toBeGreaterThanOrEqual(marks[0]![1]);
    }
  });

  it('writes nothing for a job that marked nothing', () => {
    const file = path.join(tempDir('orca-start-trace-'), 'marks.jsonl');
    StartTrace.forJob('t1', { ORCA_START_TRACE: file })!.write();
    expect(existsSync(file)).toBe(false);
  });
});
