import type { RunEvent } from '../../shared/core/events/runEvent.js';
import type { RunStreamEntry } from '../../shared/core/events/runStreamEntry.js';
import { parseBoardEvent } from '../../shared/infra/board/boardEvent.js';

type Of<T extends RunEvent['type']> = Extract<RunEvent, { type: T }>;

/**
 * A pull request's description made from a run's events only (`orca run --pr-body FILE`): the
 * task, each subtask with its owned paths, commits and cost, the integration checks with their
 * exit codes and test counts, the gates with their reasons, the Verification verdict and
 * problems, and what is unverified. Every claim points at its evidence (a commit, a log, a
 * transcript); what an agent wrote appears only quoted, and said to be the agent's. A claim the
 * events hold no evidence for (a check with no log) is not made: it is listed as unverified.
 */
export function prBody(entries: readonly RunStreamEntry[]): string {
  const run: RunEvent[] = [];
  const summaries = new Map<string, string>();
  for (const entry of entries) {
    const parsed = parseBoardEvent(entry);
    if (parsed.source === 'run') run.push(parsed.event);
    else if (parsed.source === 'agent' && parsed.event.type === 'end' && entry.task_id) {
      const summary = (parsed.event.report as { summary?: unknown } | undefined)?.summary;
      if (typeof summary === 'string' && summary.trim()) summaries.set(entry.task_id, summary.trim());
    }
  }
  const all = <T extends RunEvent['type']>(type: T) => run.filter((event): event is Of<T> => event.type === type);
  const last = <T extends RunEvent['type']>(type: T) => all(type).at(-1);
  const created = last('run_created');
  if (!created) throw new Error('the run has no run_created event: there is nothing to describe');
  const end = last('run_end');
  const verdict = last('verdict');
  const plan = last('plan');
  const results = all('task_result');
  const merges = all('merge');
  const checks = all('check');
  const gates = all('gate');
  const states = all('task_state');
  const unverified: string[] = [];

  const out: string[] = [];
  const status = end?.status ?? verdict?.status ?? 'unfinished';
  out.push(`# ${firstLine(created.task)}`, '');
  out.push(
    `orca run \`${entries[0]?.run_id ?? ''}\`: **${status}**${end?.detail ? ` (${end.detail})` : ''}. ` +
      `Base \`${short(created.base)}\`${end?.head ? `, head \`${short(end.head)}\`` : ''} on \`${created.integration_branch}\`.`,
  );
  out.push(
    '',
    'Everything below comes from the run’s recorded events; each claim names its evidence. Words an agent wrote are quoted and marked as the agent’s.',
    '',
  );

  out.push('## Task', '', quote(created.task), '');

  out.push('## Subtasks', '');
  for (const subtask of plan?.subtasks ?? []) {
    const state = states.filter((event) => event.task_id === subtask.id).at(-1);
    const result = results.filter((event) => event.task_id === subtask.id).at(-1);
    const spent = results.filter((event) => event.task_id === subtask.id).reduce((sum, event) => sum + event.cost_usd, 0);
    const merge = merges.filter((event) => event.task_id === subtask.id).at(-1);
    out.push(`### \`${subtask.id}\`: ${subtask.title} (${state?.status ?? 'not started'})`, '');
    out.push(`- Owned paths: ${subtask.paths.length > 0 ? subtask.paths.map(code).join(', ') : '(none named)'}`);
    if (result?.commit) out.push(`- Commit: \`${result.commit}\` on \`${result.branch ?? '?'}\``);
    if (merge?.commit && (merge.outcome === 'merged' || merge.outcome === 'resolved'))
      out.push(`- Merged into the integration branch as \`${merge.commit}\` (${merge.outcome})`);
    if (result)
      out.push(
        `- Cost: $${spent.toFixed(4)} over ${results.filter((e) => e.task_id === subtask.id).length} attempt(s); transcript \`${result.transcript}\``,
      );
    for (const check of checks.filter((event) => event.task_id === subtask.id)) out.push(`- Check: ${checkLine(check, unverified)}`);
    for (const gate of latestGates(gates.filter((event) => event.task_id === subtask.id))) out.push(`- ${gateLine(gate)}`);
    const summary = summaries.get(subtask.id);
    if (summary) out.push(`- The worker’s summary (the agent’s words, not checked):`, '', indent(quote(summary)));
    if (state && !['merged', 'verified'].includes(state.status)) {
      unverified.push(
        `Subtask \`${subtask.id}\` is ${state.status}${state.detail ? `: ${state.detail}` : ''}; its work is not in the result.`,
      );
    }
    out.push('');
  }
  if (!plan) out.push('The run made no plan.', '');

  out.push('## Integration checks', '');
  const integration = checks.filter((event) => event.task_id === undefined || event.task_id.startsWith('_'));
  const shown = integration.filter((check) => check.log !== '');
  if (shown.length > 0) {
    out.push('| Command | Exit code | Tests executed | Tree | Log |', '| --- | --- | --- | --- | --- |');
    for (const check of shown) {
      out.push(
        `| ${code(check.command)} | ${check.exit_code ?? 'none (stopped)'} | ${check.tests_executed ?? 'not counted'} | \`${short(check.tree)}\` | \`${check.log}\` |`,
      );
      if (check.tests_executed === null && !check.command.startsWith('setup: '))
        unverified.push(`How many tests ${code(check.command)} ran is not known (its output named no count).`);
    }
  } else out.push('No integration check ran.');
  for (const check of integration.filter((one) => one.log === ''))
    unverified.push(`${code(check.command)} ran with no log kept: its result is not claimed here.`);
  out.push('');

  out.push('## Gates', '');
  const runGates = latestGates(gates.filter((event) => event.task_id === undefined));
  if (runGates.length > 0) for (const gate of runGates) out.push(`- ${gateLine(gate)}`);
  else out.push('No run-level gate was recorded.');
  const failedTaskGates = gates.filter((event) => event.task_id !== undefined && !event.ok);
  if (failedTaskGates.length > 0) {
    out.push('', 'Gates that refused a subtask’s report:');
    for (const gate of latestGates(failedTaskGates)) out.push(`- \`${gate.task_id}\`: ${gateLine(gate)}`);
  }
  out.push('');

  out.push('## Verification', '');
  const problems = last('problems');
  out.push(verdict ? `Verdict: **${verdict.status}**${verdict.detail ? ` (${verdict.detail})` : ''}.` : 'No verdict was recorded.');
  const verifier = results.filter((event) => event.task_id.startsWith('_verify-')).at(-1);
  if (verifier) out.push('', `The Verification agent’s transcript: \`${verifier.transcript}\`.`);
  if (problems && problems.problems.length > 0) {
    out.push('', `Problems it reported (round ${problems.round}; the agent’s words, each checked against the merged tree):`);
    for (const problem of problems.problems) {
      const where = `${problem.file}${problem.line ? `:${problem.line}` : ''}`;
      if (problem.verified) out.push(`- ${code(where)} (the file and line exist in the merged tree): ${quoteInline(problem.what)}`);
      else
        unverified.push(
          `A reported problem in ${code(where)} could not be checked (${problem.reason ?? 'no reason given'}): ${quoteInline(problem.what)}`,
        );
    }
  } else if (problems) out.push('', 'It reported no problem.');
  out.push('');

  const findings = last('findings');
  for (const fact of findings?.facts.filter((one) => !one.verified) ?? []) {
    unverified.push(`An exploration finding did not hold at the base (${fact.reason ?? 'no reason given'}): ${quoteInline(fact.fact)}`);
  }
  out.push('## Unverified', '');
  if (unverified.length > 0) for (const line of unverified) out.push(`- ${line}`);
  else out.push('Nothing the run recorded is left unverified.');
  out.push('');
  if (end) out.push(`Total cost: $${end.cost_usd.toFixed(4)}${created.scripted ? ' (Scripted model: no LLM was used)' : ''}.`, '');
  return out.join('\n');
}

function checkLine(check: Of<'check'>, unverified: string[]): string {
  if (check.log === '') {
    unverified.push(`${code(check.command)} ran with no log kept: its result is not claimed here.`);
    return `${code(check.command)} (no log kept)`;
  }
  return `${code(check.command)}: exit ${check.exit_code ?? 'none (stopped)'}, ${check.tests_executed ?? 'uncounted'} test(s) executed on \`${short(check.tree)}\`; log \`${check.log}\``;
}

function gateLine(gate: Of<'gate'>): string {
  return `${gate.ok ? 'passed' : '**failed**'} gate \`${gate.name}\`: ${gate.reason}`;
}

/** The latest verdict of each gate name, in the order first seen. */
function latestGates(gates: Array<Of<'gate'>>): Array<Of<'gate'>> {
  const latest = new Map<string, Of<'gate'>>();
  for (const gate of gates) latest.set(`${gate.task_id ?? ''}\0${gate.name}`, gate);
  return [...latest.values()];
}

function short(sha: string): string {
  return sha.slice(0, 12);
}

function firstLine(text: string): string {
  const line = text.trim().split('\n', 1)[0] ?? '';
  return line.length > 72 ? `${line.slice(0, 71)}…` : line;
}

function code(text: string): string {
  return `\`${text.replace(/`/g, "'").replace(/\|/g, '\\|')}\``;
}

function quote(text: string): string {
  return text
    .trim()
    .split('\n')
    .map((line) => `> ${line}`)
    .join('\n');
}

function quoteInline(text: string): string {
  return `“${text.replace(/\s*\n\s*/g, ' ').trim()}”`;
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}
