import type { RunStatus } from '../../shared/core/events/runEvent.js';
import type { SandboxKind } from '../../shared/core/runtime/sandboxMode.js';
import type { TaskRecord } from '../../shared/infra/board/runChange.js';
import type { RunFold } from '../../shared/infra/board/runFold.js';
import { taskStatusWord } from '../../shared/infra/board/taskStatusWord.js';
import type { CheckedProblem } from '../../shared/infra/verify/evidence/problemCheck.js';
import { inGateOrder } from '../../shared/infra/verify/gates/gateList.js';
import { checkedAlone } from './subtaskBrief.js';

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
  tasks: Array<{
    id: string;
    role: string;
    status: string;
    /** One line: why it ended as it did. */
    detail: string;
    /** The gates of its last report, when it made one. */
    gates?: GateRecord[];
    branch?: string;
    commit?: string;
    attempts: number;
    /** What its agent's commands ran in on the worker: `bwrap`, or `none` (unsandboxed); absent before it started. */
    sandbox?: SandboxKind;
    /** The agent that ran it: `orca`, or an ACP agent's name (docs/agents.md). */
    agent?: string;
    /** The host its (last) agent ran on, as that worker named it. */
    host?: string;
    /** False when its plan said `checks: []`: nothing was required of its branch alone, and the integration checks judged it right after its merge. */
    checked_alone: boolean;
    /** The merge that was taken off the integration branch when it failed verification (its work stays on `branch` at `commit`). */
    rolled_back_merge?: string;
  }>;
  /** The Explore findings, each checked at the base commit. */
  findings: Array<{ fact: string; evidence: string; verified: boolean; reason?: string }>;
  /** The run's integration checks and why each was chosen: `--check`, or `detected: <how>`. */
  checks: Array<{ command: string; source: string }>;
  gates: GateRecord[];
  verification: { verdict: 'PASS' | 'FAIL' | 'PARTIAL'; checks: CheckRecordOut[]; problems: CheckedProblem[] } | null;
  usage: { input_tokens: number; output_tokens: number; cache_read_tokens: number; cache_creation_tokens: number; cost_usd: number };
  /** Why the run ended with its status, in one line (the same as `detail`). */
  reason: string;
  detail: string;
  scripted: boolean;
  /** With --push or --pr-body: what became of the hand-off (coordinator/handoff/handOff.ts). */
  handoff?: {
    push:
      | { pushed: true; remote: string; branch: string; commit: string }
      | { pushed: false; remote: string; branch: string; reason: string }
      | null;
    pr_body: string | null;
  };
}

export function runJson(
  state: RunFold,
  extra: { status: RunStatus; head: string; gates: GateRecord[]; verification: RunJson['verification']; detail: string },
): RunJson {
  const tasks = [...state.tasks.values()]
    .filter((task) => task.role === 'worker' && !task.task_id.startsWith('_'))
    .map((task) => {
      const gates = lastReportGates(task);
      return {
        id: task.task_id,
        role: task.role,
        status: task.status,
        detail: taskDetail(task),
        ...(gates.length > 0 ? { gates } : {}),
        ...(task.branch ? { branch: task.branch } : {}),
        ...(task.commit ? { commit: task.commit } : {}),
        attempts: task.attempt,
        ...(task.sandbox ? { sandbox: task.sandbox } : {}),
        ...(task.agent ? { agent: task.agent } : {}),
        ...(task.host ? { host: task.host } : {}),
        checked_alone: checkedAlone(state.run.plan?.subtasks.find((one) => one.id === task.task_id)),
        ...(task.merge_outcome === 'rolled_back' && task.merge_commit ? { rolled_back_merge: task.merge_commit } : {}),
      };
    });
  return {
    run_id: state.run.run_id,
    status: extra.status,
    base: state.run.base ?? '',
    integration_branch: state.run.integration_branch ?? '',
    head: extra.head,
    tasks,
    findings: (state.run.findings?.facts ?? []).map(({ fact, evidence, verified, reason }) => ({
      fact,
      evidence,
      verified,
      ...(reason ? { reason } : {}),
    })),
    checks: integrationChecksOf(state),
    gates: extra.gates,
    verification: extra.verification,
    usage: { ...state.run.result_usage, cost_usd: round(state.run.result_cost_usd) },
    reason: extra.detail,
    detail: extra.detail,
    scripted: state.run.scripted,
  };
}

/** The run's integration checks with why each was chosen (a run recorded before sources were kept says `unknown`). */
function integrationChecksOf(state: RunFold): RunJson['checks'] {
  const sources = state.run.settings?.check_sources ?? [];
  return (state.run.checks ?? []).map((command, at) => ({ command, source: sources[at] ?? 'unknown' }));
}

/** Why a task ended as it did, in one line: what the coordinator said with its last status, else how its agent ended. */
export function taskDetail(task: TaskRecord): string {
  const said = task.status_detail ?? task.error ?? (task.end_reason ? `${task.end_reason}: ${task.end_detail ?? ''}` : undefined);
  const fallback: Record<string, string> = {
    pending: 'it never started',
    merged: 'merged into the integration branch',
    verified: 'merged into the integration branch and verified',
    cancelled: 'the run stopped before this task ran',
  };
  return oneLine(said ?? fallback[task.status] ?? task.status);
}

/** The gates of a task's last report: the latest verdict of each gate recorded on it, in gate order. */
export function lastReportGates(task: TaskRecord): GateRecord[] {
  const latest = new Map<string, GateRecord>();
  for (const evidence of task.evidence) {
    if (evidence.kind === 'gate') latest.set(evidence.name, { name: evidence.name, ok: evidence.ok, reason: evidence.reason });
  }
  return inGateOrder([...latest.values()]);
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
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
        pad(taskStatusWord(task), 11),
        pad(String(task.attempt), 9),
        pad(String(tokens), 10),
        `$${task.result_cost_usd.toFixed(4)}`,
      ].join(''),
    );
  }
  lines.push('');
  for (const task of json.tasks.filter((one) => one.status !== 'merged' && one.status !== 'verified'))
    lines.push(`${task.id} ${task.status}: ${task.detail}`);
  const unverified = json.findings.filter((finding) => !finding.verified);
  if (json.findings.length > 0) {
    lines.push(`findings: ${json.findings.length - unverified.length} verified at the base, ${unverified.length} unverified`);
    for (const finding of unverified) lines.push(`  unverified: ${finding.fact} (${finding.evidence}): ${finding.reason}`);
  }
  for (const gate of json.gates) lines.push(`gate ${gate.name}: ${gate.ok ? 'ok' : 'FAILED'} (${gate.reason})`);
  if (json.verification) {
    lines.push(`verification: ${json.verification.verdict}`);
    for (const check of json.verification.checks) {
      lines.push(`  ${check.command}: exit ${check.exit_code ?? '-'}, ${check.tests_executed ?? 'unknown'} test(s) executed`);
    }
    for (const problem of json.verification.problems) {
      lines.push(
        `  problem ${problem.file}${problem.line ? `:${problem.line}` : ''}: ${problem.what}${problem.verified ? '' : ` (unverified: ${problem.reason})`}`,
      );
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
