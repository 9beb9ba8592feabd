import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CommandTrace, traceCommand } from '../../shared/core/runtime/commandTrace.js';
import { tempDir } from '../support/tempDir.js';

describe("a command's trace (ORCA_COMMAND_TRACE)", () => {
  it('is nothing without the variable', () => {
    expect(traceCommand('agent', {})).toBeUndefined();
  });

  it("writes one line: the process's start, then its steps in order with their times, once", () => {
    const file = path.join(tempDir('orca-command-trace-'), 'marks.jsonl');
    const trace = new CommandTrace(file, 'agent');
    trace.mark('pre_start');
    trace.mark('queued');
    trace.write();
    trace.write();
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]!) as { command: string; pid: number; marks: [string, number][] };
    expect(line.command).toBe('agent');
    expect(line.pid).toBe(process.pid);
    expect(line.marks.map(([step]) => step)).toEqual(['process_start', 'pre_start', 'queued']);
    expect(line.marks[0]![1]).toBe(performance.timeOrigin);
    expect(line.marks[2]![1]).toBeGreaterThanOrEqual(line.marks[1]![1]);
  });

  it('writes nothing once written', () => {
    const file = path.join(tempDir('orca-command-trace-'), 'marks.jsonl');
    const trace = new CommandTrace(file, 'agent');
    trace.write();
    const before = readFileSync(file, 'utf8');
    trace.write();
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(existsSync(file)).toBe(true);
  });
});
