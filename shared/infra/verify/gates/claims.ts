import type { ToolLedgerEntry } from '../../../core/loop/toolLedger.js';
import { bashResultFields } from '../../../core/tool/bashResultData.js';
import { commandInput, resultsKind } from '../../../core/tool/toolFacts.js';
import { normalizeCommand } from '../evidence/checkCommand.js';
import type { CheckRecord, ClaimedCheck } from '../evidence/evidence.js';
import { firstStageRun, judgedExitCode } from '../evidence/pipelineCheck.js';
import { defineGate, type VerdictOf } from './gate.js';

export const CLAIMS = defineGate({
  name: 'claims',
  checks: 'each check an agent claims is in its own tool log, with the same exit code, and was not failed since',
  report: 'refuse',
  merge: 'refuse',
});

/**
 * The claims gate: a check an agent says it ran (worker `claimed_checks`, verification `checks`)
 * counts only when its OWN tool log (the job result's `commands`, or its session's ledger) holds
 * that command (same words, whitespace aside) with the same exit code. Dropped and flagged:
 * - a command it never ran (`npm test` is not `npm run test:unit`; it is the first stage of
 *   `npm test 2>&1 | tail`, judged on that stage's own exit code: commandsFromLedger);
 * - an exit code none of its runs had;
 * - a claimed exit 0 when the latest run of that command failed (a pass that was later undone).
 * The log is the host's record, never the agent's prose.
 */
export interface DroppedClaim {
  claim: ClaimedCheck;
  why: string;
}

export interface ClaimsVerdict {
  gate: VerdictOf<typeof CLAIMS>;
  kept: ClaimedCheck[];
  dropped: DroppedClaim[];
}

export function claimsGate(claims: readonly ClaimedCheck[], log: readonly CheckRecord[], who = 'the agent'): ClaimsVerdict {
  const runs = new Map<string, CheckRecord[]>();
  for (const run of [...log].sort((a, b) => a.at - b.at)) {
    const key = normalizeCommand(run.command);
    runs.set(key, [...(runs.get(key) ?? []), run]);
  }
  const kept: ClaimedCheck[] = [];
  const dropped: DroppedClaim[] = [];
  for (const claim of claims) {
    const why = mismatch(claim, runs.get(normalizeCommand(claim.command)) ?? []);
    if (why) dropped.push({ claim, why });
    else kept.push(claim);
  }
  if (dropped.length > 0) {
    const list = dropped.map(({ claim, why }) => `\`${claim.command}\` (exit ${claim.exit_code}): ${why}`).join('; ');
    return {
      gate: CLAIMS.verdict(false, `${dropped.length} of ${claims.length} checks claimed by ${who} dropped: ${list}`),
      kept,
      dropped,
    };
  }
  const reason = claims.length === 0 ? `${who} claimed no checks` : `all ${claims.length} checks claimed by ${who} match its own tool log`;
  return { gate: CLAIMS.verdict(true, reason), kept, dropped };
}

function mismatch(claim: ClaimedCheck, runs: readonly CheckRecord[]): string | undefined {
  if (runs.length === 0) return 'never run: no such command in its own tool log';
  const codes = runs.map((run) => run.exit_code);
  if (!codes.includes(claim.exit_code)) {
    return `its own tool log has it exiting ${codes.map((code) => (code === null ? 'without an exit code (timed out, aborted or refused)' : String(code))).join(', ')}, never ${claim.exit_code}`;
  }
  const latest = runs.at(-1)!;
  if (claim.exit_code === 0 && latest.exit_code !== 0) {
    return `its latest run exited ${latest.exit_code ?? 'without an exit code'}: the earlier pass no longer stands`;
  }
  return undefined;
}

/**
 * The command runs (Bash calls) of a session's ledger as a command log (what a job result's `commands` holds).
 * A command that was one pipeline also stands for a run of its first stage (pipelineCheck.ts):
 * `npm test 2>&1 | tail -5` is logged as itself and as `npm test`, each with `npm test`'s exit
 * code when that stage is a check (the pipe's own code is tail's).
 */
export function commandsFromLedger(ledger: readonly ToolLedgerEntry[]): CheckRecord[] {
  return ledger
    .filter((entry) => resultsKind(entry.tool) === 'command')
    .flatMap((entry) => {
      const data = bashResultFields(entry.data);
      const command = commandInput(entry.tool, entry.input) ?? '';
      const ran = !entry.isError && data.exitCode !== undefined;
      const judged = judgedExitCode(command, data);
      const record: CheckRecord = {
        command,
        exit_code: ran && judged !== undefined ? judged : null,
        at: entry.at,
        ...(data.outputFile !== undefined ? { output_file: data.outputFile } : {}),
      };
      const stage = ran ? firstStageRun(command, data) : undefined;
      return stage ? [record, { ...record, command: stage.command, exit_code: stage.exitCode }] : [record];
    });
}
