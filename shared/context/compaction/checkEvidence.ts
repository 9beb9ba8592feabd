import path from 'node:path';
import type { ToolLedgerEntry } from '../../core/loop/toolLedger.js';
import type { Message } from '../../core/model/message.js';
import { familyOf, pathInput } from '../../core/tool/toolFacts.js';
import { isCheckCommand, normalizeCommand } from '../../infra/verify/evidence/checkCommand.js';
import { resultFileOf } from './resultArchive.js';
import { bashOutcome, type ToolCall, toolCallsIn } from './toolCalls.js';

/**
 * The two sections of a hand-off that the HOST writes from its own records (the tool ledger),
 * never the summariser: a summary tends to turn "the tests failed, then I changed the config"
 * into "fixed the config", and the next model then reports success it never saw (seed 000, 4.3).
 * - Unverified changes: files edited (Edit/Write that succeeded) after the last passing check.
 * - Failed or not-yet-run checks: each check command (verify/checkCommand.ts) whose latest run failed,
 *   timed out or was refused; whose latest passing run is older than a later edit; and the task's
 *   named checks never run. Each run with the path of a file holding its whole output.
 */
export interface CheckRun {
  id: string;
  turn: number;
  command: string;
  passed: boolean;
  /** `exit code 1`, `killed by SIGTERM`, `did not finish: …`. */
  outcome: string;
  logPath?: string;
  order: number;
}

export interface EditRecord {
  file: string;
  tool: string;
  turn: number;
  order: number;
}

export interface CheckEvidence {
  edits: EditRecord[];
  unverified: EditRecord[];
  lastPass?: CheckRun;
  failing: CheckRun[];
  /** Latest run passed, but a file was edited after it. */
  stale: Array<{ run: CheckRun; editedAfter: EditRecord }>;
  notRun: string[];
}

export function collectCheckEvidence(input: {
  ledger: readonly ToolLedgerEntry[];
  messages: readonly Message[];
  root: string;
  sessionDir: string;
  requiredChecks?: readonly string[];
}): CheckEvidence {
  const calls = new Map(toolCallsIn(input.messages, input.ledger).map((call) => [call.id, call]));
  const edits: EditRecord[] = [];
  const runs: CheckRun[] = [];
  input.ledger.forEach((entry, order) => {
    if (familyOf(entry.tool) === 'edit' && !entry.isError) {
      const file = pathInput(entry.tool, entry.input);
      if (file !== undefined) edits.push({ file: display(file, input.root), tool: entry.name, turn: entry.turn, order });
      return;
    }
    const call: ToolCall = calls.get(entry.id) ?? {
      id: entry.id,
      name: entry.name,
      tool: entry.tool,
      input: entry.input,
      use: { type: 'tool_use', id: entry.id, name: entry.name, input: entry.input },
      useIndex: -1,
      resultIndex: -1,
      entry,
    };
    const bash = bashOutcome(call);
    if (!bash || !isCheckCommand(bash.command)) return;
    const passed = !bash.errored && bash.exitCode === 0 && bash.signal === null;
    const outcome = bash.signal
      ? `killed by ${bash.signal}`
      : bash.exitCode !== null && !entry.isError
        ? `exit code ${bash.exitCode}`
        : `did not finish: ${firstLine(call.result?.content ?? 'refused or stopped before it exited')}`;
    runs.push({
      id: entry.id,
      turn: entry.turn,
      command: normalizeCommand(bash.command),
      passed,
      outcome,
      order,
      logPath: resultFileOf(call, input.sessionDir, bash.outputFile),
    });
  });

  const lastPass = runs.filter((run) => run.passed).at(-1);
  const after = lastPass?.order ?? -1;
  const unverified = latestPerFile(edits.filter((edit) => edit.order > after));
  const latest = new Map<string, CheckRun>();
  for (const run of runs) latest.set(run.command, run);
  const failing: CheckRun[] = [];
  const stale: CheckEvidence['stale'] = [];
  for (const run of latest.values()) {
    if (!run.passed) failing.push(run);
    else {
      const editedAfter = edits.filter((edit) => edit.order > run.order).at(-1);
      if (editedAfter) stale.push({ run, editedAfter });
    }
  }
  const ran = new Set(runs.map((run) => run.command));
  const notRun = (input.requiredChecks ?? []).map(normalizeCommand).filter((command) => !ran.has(command));
  return { edits, unverified, lastPass, failing, stale, notRun };
}

export const UNVERIFIED_HEADING = '## Unverified changes (from the host’s records, not from the summary)';
export const CHECKS_HEADING = '## Failed or not-yet-run checks (from the host’s records, not from the summary)';

export function renderCheckEvidence(evidence: CheckEvidence): string {
  const unverified: string[] = [UNVERIFIED_HEADING];
  if (evidence.unverified.length === 0) {
    unverified.push(
      evidence.edits.length === 0
        ? 'None: no file was edited in this session.'
        : `None: no file was edited after the last passing check (${describeRun(evidence.lastPass!)}).`,
    );
  } else {
    unverified.push(
      evidence.lastPass
        ? `Edited after the last passing check (${describeRun(evidence.lastPass)}), so not verified by any check since:`
        : 'Edited, and no check has passed in this session, so not verified:',
    );
    for (const edit of evidence.unverified) unverified.push(`- ${edit.file} (${edit.tool}, turn ${edit.turn})`);
    unverified.push('Run the checks that cover these files before you rely on them or report them done.');
  }

  const checks: string[] = [CHECKS_HEADING];
  for (const run of evidence.failing)
    checks.push(`- FAILED: \`${run.command}\` — ${run.outcome} (turn ${run.turn}). Log: ${run.logPath ?? 'none'}`);
  for (const { run, editedAfter } of evidence.stale) {
    checks.push(
      `- NOT RE-RUN: \`${run.command}\` passed at turn ${run.turn}, but ${editedAfter.file} was edited after it (turn ${editedAfter.turn}). Log of that run: ${run.logPath ?? 'none'}`,
    );
  }
  for (const command of evidence.notRun) checks.push(`- NOT RUN: \`${command}\` (a check named for this task) has not been run.`);
  if (checks.length === 1) {
    checks.push(
      evidence.lastPass || evidence.edits.length === 0
        ? 'None: the latest run of every check passed and no file was edited after it.'
        : 'None recorded, but no check has been run at all in this session.',
    );
  } else {
    checks.push('A failed or stale check is not passing until it is run again, after the last edit, and exits 0.');
  }
  return `${unverified.join('\n')}\n\n${checks.join('\n')}`;
}

function describeRun(run: CheckRun): string {
  return `\`${run.command}\`, ${run.outcome} at turn ${run.turn}`;
}

function latestPerFile(edits: EditRecord[]): EditRecord[] {
  const byFile = new Map<string, EditRecord>();
  for (const edit of edits) {
    byFile.delete(edit.file);
    byFile.set(edit.file, edit);
  }
  return [...byFile.values()];
}

function display(file: string, root: string): string {
  const abs = path.resolve(root, file);
  const rel = path.relative(root, abs);
  return rel.startsWith('..') || path.isAbsolute(rel) ? abs : rel.split(path.sep).join('/');
}

function firstLine(text: string): string {
  const line = text.split('\n').find((candidate) => candidate.trim() !== '') ?? '';
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}
