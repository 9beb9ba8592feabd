import type { RunStatus } from '../../shared/core/events/runEvent.js';
import type { RunFold } from '../../shared/infra/board/runFold.js';

export interface GateRecord {
  name: string;
  ok: boolean;
  reason: string;
}

export interface CheckRecordOut {
  command: string;
  exit_code: number | null;
  tests_executed: number | null;
}

/** `orca run --json`: the shape in docs/json.md. */
export interface RunJson {
  run_id: string;
  status: RunStatus;
  base: string;
  integration_branch: string;
  head: string;
  tasks: Array<{ id: string; role: string; status: string; branch?: string; commit?: string; attempts: number }>;
  gates: GateRecord[];
  verification: { verdict: 'PASS' | 'FAIL' | 'PARTIAL'; checks: CheckRecordOut[] } | null;
  usage: { input_tokens: number; output_tokens: number; cache_read_tokens: number; cache_creation_tokens: number; cost_usd: number };
  detail: string;
  scripted: boolean;
}

export function runJson(
  state: RunFold,
  extra: { status: RunStatus; head: string; gates: GateRecord[]; verification: RunJson['verification']; detail: string },
): RunJson {
  const tasks = [...state.tasks.values()]
    .filter((task) => task.role === 'worker' && !task.task_id.startsWith('_'))
    .map((task) => ({
      id: task.task_id,
      role: task.role,
      status: task.status,
      ...(task.branch ? { branch: task.branch } : {}),
      ...(task.commit ? { commit: task.commit } : {}),
      attempts: task.attempt,
    }));
  return {
    run_id: state.run.run_id,
    status: extra.status,
    base: state.run.base ?? '',
    integration_branch: state.run.integration_branch ?? '',
    head: extra.head,
    tasks,
    gates: extra.gates,
    verification: extra.verification,
    usage: { ...state.run.result_usage, cost_usd: round(state.run.result_cost_usd) },
    detail: extra.detail,
    scripted: state.run.scripted,
  };
}

/** The exit code of `orca run` / `orca resume` for a run's status (docs/cli.md). */
export function exitCodeOf(status: string | undefined): number {
  return ({ PASS: 0, FAIL: 1, PARTIAL: 1, ABORTED: 130 } as Record<string, number>)[status ?? 'FAIL'] ?? 1;
}

/** Prints a run's result (the JSON with `--json`, else the report) and returns its exit code. */
export function printRunResult(json: RunJson, state: RunFold, asJson: boolean): number {
  process.stdout.write(asJson ? `${JSON.stringify(json)}\n` : `${runReport(json, state)}\n`);
  return exitCodeOf(json.status);
}

/** The result as a person reads it: the tasks, the verdict with its evidence, and what it cost. */
export function runReport(json: RunJson, state: RunFold): string {
  const lines: string[] = [];
  lines.push(`run ${json.run_id}: ${json.status}${json.detail ? ` (${json.detail})` : ''}`);
  lines.push(`integration branch ${json.integration_branch} at ${json.head.slice(0, 12)} (base ${json.base.slice(0, 12)})`);
  lines.push('');
  lines.push([pad('task', 24), pad('status', 11), pad('attempts', 9), pad('tokens', 10), 'cost'].join(''));
  for (const task of state.tasks.values()) {
    const usage = task.result_usage;
    const tokens = usage.input_tokens + usage.cache_read_tokens + usage.cache_creation_tokens + usage.output_tokens;
    lines.push(
      [
        pad(task.task_id, 24),
        pad(task.status, 11),
        pad(String(task.attempt), 9),
        pad(String(tokens), 10),
        `$${task.result_cost_usd.toFixed(4)}`,
      ].join(''),
    );
  }
  lines.push('');
  for (const gate of json.gates) lines.push(`gate ${gate.name}: ${gate.ok ? 'ok' : 'FAILED'} (${gate.reason})`);
  if (json.verification) {
    lines.push(`verification: ${json.verification.verdict}`);
    for (const check of json.verification.checks) {
      lines.push(`  ${check.command}: exit ${check.exit_code ?? '-'}, ${check.tests_executed ?? 'unknown'} test(s) executed`);
    }
  }
  const totalTokens = json.usage.input_tokens + json.usage.cache_read_tokens + json.usage.cache_creation_tokens + json.usage.output_tokens;
  lines.push(
    `total: ${totalTokens} tokens, $${json.usage.cost_usd.toFixed(4)}${json.scripted ? ' (Scripted model: no LLM was used)' : ''}`,
  );
  return lines.join('\n');
}

function pad(text: string, width: number): string {
  return text.length >= width ? `${text.slice(0, width - 2)}… ` : text.padEnd(width);
}

function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
