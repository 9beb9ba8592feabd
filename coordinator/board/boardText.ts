import type { TaskStatus } from '../../shared/core/events/runEvent.js';
import { ENDED } from '../../shared/core/events/taskStatusGroups.js';
import { totalInputTokens } from '../../shared/core/model/usage.js';
import type { TaskView } from '../../shared/infra/board/readBoard.js';
import { taskStatusWord } from '../../shared/infra/board/taskStatusWord.js';
import type { BoardWithResult, RunResultState } from './runResultState.js';

/**
 * A run's board as lines of text: a header for the run, a row per task (status, role, host, elapsed,
 * tokens, cost, what it is doing now), and the run's verdict. `orca status` prints it once,
 * `orca board` redraws it in place.
 */

export interface BoardTextOptions {
  now: number;
  /** ANSI colours (only on a terminal). */
  color: boolean;
  /** Cut every line to this many columns, so a live redraw never wraps. */
  width?: number;
}

const STATUS_COLOUR: Record<TaskStatus, string> = {
  pending: '2',
  queued: '2',
  running: '33',
  completed: '36',
  merged: '32',
  verified: '32;1',
  failed: '31',
  blocked: '31',
  aborted: '35',
  cancelled: '35',
};

const RUN_COLOUR: Record<string, string> = { PASS: '32;1', FAIL: '31;1', PARTIAL: '33;1', ABORTED: '35;1', running: '33' };

export function boardText(board: BoardWithResult, options: BoardTextOptions): string[] {
  const paint = (code: string | undefined, text: string) => (options.color && code ? `\x1b[${code}m${text}\x1b[0m` : text);
  const { run, tasks } = board;
  const lines: string[] = [];

  const runEnd = run.ended_at ?? options.now;
  const heading = [
    `run ${run.run_id}`,
    paint(RUN_COLOUR[run.state], run.state),
    run.phase && run.state === 'running' ? `phase ${run.phase}` : undefined,
    run.scripted ? 'Scripted model (no LLM)' : run.model,
    run.created_at === undefined ? undefined : `${duration(runEnd - run.created_at)}`,
  ];
  lines.push(paint('1', heading.filter(Boolean).join(' · ')));
  if (run.task) lines.push(`task: ${oneLine(run.task)}`);
  if (run.repo) {
    const head = run.head ? ` (head ${run.head.slice(0, 12)})` : '';
    lines.push(
      `repo ${run.repo}${run.base ? ` at ${run.base.slice(0, 12)}` : ''}${run.integration_branch ? ` → ${run.integration_branch}${head}` : ''}`,
    );
  }
  lines.push(`tokens ${tokens(totalInputTokens(run.usage))} in, ${tokens(run.usage.output_tokens)} out · ${money(run.cost_usd)}`);
  if (run.abort_requested && (run.state === 'running' || run.state === 'starting'))
    lines.push(paint('35;1', 'abort requested: waiting for the run to stop'));
  lines.push('');

  const rows = [['STATUS', 'TASK', 'ROLE', 'HOST', 'ELAPSED', 'TOKENS', 'COST', 'NOW'], ...tasks.map((task) => taskRow(task, options.now))];
  const widths = rows[0]!.slice(0, -1).map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  rows.forEach((row, index) => {
    const cells = row.map((cell, column) => (column < widths.length ? cell.padEnd(widths[column]!) : cell));
    if (index === 0) lines.push(paint('2', cells.join('  ')));
    else {
      const status = tasks[index - 1]!.status;
      cells[0] = paint(STATUS_COLOUR[status], cells[0]!);
      lines.push(cells.join('  '));
    }
  });
  if (tasks.length === 0) lines.push(paint('2', '(no tasks yet)'));

  if (board.asks.length > 0) {
    lines.push('', paint('33;1', `${board.asks.length} permission request(s) wait for an answer:`));
    for (const ask of board.asks) {
      lines.push(
        `? ${ask.task_id} asks to run ${ask.tool}: ${oneLine(ask.summary)} (request ${ask.id}, waiting ${duration(options.now - ask.at)})`,
        `  ${oneLine(ask.reason)}; orca allow ${run.run_id} ${ask.id} / orca deny ${run.run_id} ${ask.id}`,
      );
    }
  }

  const checks = board.evidence.filter((item) => item.kind === 'check');
  if (checks.length > 0) {
    lines.push('');
    for (const check of checks)
      lines.push(
        `check ${check.exit_code === 0 ? 'ok' : `exit ${check.exit_code ?? 'none'}`}: ${check.command}${check.tests_executed === null ? '' : ` (${check.tests_executed} tests)`}`,
      );
  }
  if (run.verdict)
    lines.push('', paint(RUN_COLOUR[run.verdict], `verdict ${run.verdict}${run.verdict_detail ? `: ${oneLine(run.verdict_detail)}` : ''}`));
  else if (run.status && run.status !== 'running' && run.detail)
    lines.push('', paint(RUN_COLOUR[run.status], `${run.status}: ${oneLine(run.detail)}`));
  if (board.result) lines.push(resultLine(board.result, paint));

  return options.width === undefined ? lines : lines.map((line) => cut(line, options.width!));
}

/** Where the run's result stands in git: one not merged yet is said in colour, with how to take it. */
function resultLine(result: RunResultState, paint: (code: string | undefined, text: string) => string): string {
  const at = result.head ? ` at ${result.head.slice(0, 12)}` : '';
  switch (result.state) {
    case 'not_merged':
      return paint('33;1', `result ${result.branch}${at}: not merged yet (git merge ${result.branch})`);
    case 'merged':
      return `result ${result.branch}${at}: merged into ${result.merged_into.join(', ')}`;
    case 'no_changes':
      return `result ${result.branch}: no changes (still at the base)`;
    case 'removed':
      return `result ${result.branch}: removed from the repository`;
    case 'unknown':
      return `result ${result.branch}: its repository is not on this host`;
  }
}

function taskRow(task: TaskView, now: number): string[] {
  const ended = ENDED.includes(task.status);
  const elapsed = task.started_at === undefined ? '–' : duration((ended ? (task.ended_at ?? task.started_at) : now) - task.started_at);
  const input = totalInputTokens(task.usage);
  return [
    `${taskStatusWord(task)}${task.attempt > 1 ? ` #${task.attempt}` : ''}`,
    task.task_id,
    // The agent that runs it, when it is not orca's own (docs/agents.md).
    task.agent && task.agent !== 'orca' ? `${task.role} (${task.agent})` : task.role,
    // Where its agent runs (or ran): with workers on many hosts, which one has it.
    task.host ?? '–',
    elapsed,
    input + task.usage.output_tokens === 0 ? '–' : `${tokens(input)}/${tokens(task.usage.output_tokens)}`,
    task.cost_usd === 0 ? '–' : money(task.cost_usd),
    task.activity,
  ];
}

/** `42s`, `3m05s`, `1h02m`. */
export function duration(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}

/** `950`, `12.3k`, `4.1M`. */
export function tokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

export function money(usd: number): string {
  return `$${usd.toFixed(usd < 1 ? 4 : 2)}`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Cuts a line to `width` visible columns, leaving ANSI sequences whole. */
function cut(line: string, width: number): string {
  let visible = 0;
  let out = '';
  for (let i = 0; i < line.length; i += 1) {
    if (line[i] === '\x1b') {
      const end = line.indexOf('m', i);
      out += line.slice(i, end + 1);
      i = end;
      continue;
    }
    if (visible >= width) continue;
    out += line[i];
    visible += 1;
  }
  return out;
}
