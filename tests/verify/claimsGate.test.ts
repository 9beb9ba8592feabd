import { describe, expect, it } from 'vitest';
import type { ToolLedgerEntry } from '../../shared/core/loop/toolLedger.js';
import type { AnyTool } from '../../shared/core/tool/tool.js';
import type { CheckRecord } from '../../shared/infra/verify/evidence/evidence.js';
import { claimsGate, commandsFromLedger } from '../../shared/infra/verify/gates/claims.js';
import { bashTool } from '../../shared/tools/bash.js';
import { readTool } from '../../shared/tools/read.js';

const log: CheckRecord[] = [
  { command: 'npm test', exit_code: 1, at: 1 },
  { command: 'npm   run build', exit_code: 0, at: 2 },
  { command: 'npm test', exit_code: 0, at: 3 },
  { command: 'npx tsc --noEmit', exit_code: 0, at: 4 },
  { command: 'npx tsc --noEmit', exit_code: 2, at: 5 },
  { command: 'npm run lint 2>&1 | tail -5', exit_code: 0, at: 6 },
  { command: 'npm run e2e', exit_code: null, at: 7 },
];

describe('the claims gate', () => {
  it('keeps claims that match a run with the same exit code (whitespace aside), an honest failure included', () => {
    const verdict = claimsGate(
      [
        { command: 'npm test', exit_code: 0 },
        { command: 'npm run build', exit_code: 0 },
        { command: 'npx tsc --noEmit', exit_code: 2 },
      ],
      log,
      'worker t1',
    );
    expect(verdict.dropped).toEqual([]);
    expect(verdict.gate).toEqual({ name: 'claims', ok: true, reason: 'all 3 checks claimed by worker t1 match its own tool log' });
  });

  it('drops a command never run, an exit code never seen, a pass undone by a later failure, and a run that never exited', () => {
    const verdict = claimsGate(
      [
        { command: 'pytest', exit_code: 0 },
        { command: 'npm test', exit_code: 2 },
        { command: 'npx tsc --noEmit', exit_code: 0 },
        { command: 'npm run lint', exit_code: 0 },
        { command: 'npm run e2e', exit_code: 0 },
        { command: 'npm test', exit_code: 0 },
      ],
      log,
    );
    expect(verdict.kept).toEqual([{ command: 'npm test', exit_code: 0 }]);
    expect(verdict.dropped.map(({ claim, why }) => [claim.command, why])).toEqual([
      ['pytest', 'never run: no such command in its own tool log'],
      ['npm test', 'its own tool log has it exiting 1, 0, never 2'],
      ['npx tsc --noEmit', 'its latest run exited 2: the earlier pass no longer stands'],
      ['npm run lint', 'never run: no such command in its own tool log'],
      ['npm run e2e', 'its own tool log has it exiting without an exit code (timed out, aborted or refused), never 0'],
    ]);
    expect(verdict.gate.ok).toBe(false);
    expect(verdict.gate.reason).toMatch(/^5 of 6 checks claimed by the agent dropped: `pytest` \(exit 0\): never run/);
  });

  it('passes with nothing claimed, and says so', () => {
    expect(claimsGate([], log).gate).toEqual({ name: 'claims', ok: true, reason: 'the agent claimed no checks' });
  });

  it("reads a session ledger's Bash calls as a command log: refused or stopped calls have no exit code", () => {
    // Entries as the loop records them: with the definition each call ran with.
    const entry = (id: string, input: unknown, isError: boolean, data?: unknown, tool: AnyTool = bashTool): ToolLedgerEntry => ({
      turn: 1,
      id,
      name: tool.name,
      tool,
      input,
      isError,
      data,
      at: Number(id),
    });
    const ledger = [
      entry('1', { command: 'npm test' }, false, { exitCode: 1, signal: null, stdoutBytes: 3, stderrBytes: 0, outputFile: '/tmp/out.txt' }),
      entry('2', { file_path: 'a.ts' }, false, undefined, readTool),
      entry('3', { command: 'npm test' }, true),
    ];
    expect(commandsFromLedger(ledger)).toEqual([
      { command: 'npm test', exit_code: 1, at: 1, output_file: '/tmp/out.txt' },
      { command: 'npm test', exit_code: null, at: 3 },
    ]);
  });
});
