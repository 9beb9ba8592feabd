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
  const { run, summaries } = eventsOf(entries);
  const all = <T extends RunEvent['type']>(type: T) => run.filter((event): event is Of<T> => event.type === type);
  const last = <T extends RunEvent['type']>(type: T) => all(type).at(-1);
  const created = last('run_created');
  if (!created) throw new Error('the run has no run_created event: there is nothing to describe');
  const story: RunStory = {
    runId: entries[0]?.run_id ?? '',
    created,
    end: last('run_end'),
    verdict: last('verdict'),
    plan: last('plan'),
    problems: last('problems'),
    findings: last('findings'),
    results: all('task_result'),
    merges: all('merge'),
    checks: all('check'),
    gates: all('gate'),
    states: all('task_state'),
    summaries,
    unverified: [],
  };
  // In this order: each section adds what it could not claim to the unverified ones, listed last.
  const out = [
    ...headerSection(story),
    ...subtasksSection(story),
    ...integrationChecksSection(story),
    ...gatesSection(story),
    ...verificationSection(story),
    ...unverifiedSection(story),
  ];
  if (story.end)
    out.push(`Total cost: $${story.end.cost_usd.toFixed(4)}${created.scripted ? ' (Scripted model: no LLM was used)' : ''}.`, '');
  return out.join('\n');
}

/** What the description is made from: the run's events, and what each agent's final Report summarised. */
interface RunStory {
  runId: string;
  created: Of<'run_created'>;
  end?: Of<'run_end'>;
  verdict?: Of<'verdict'>;
  plan?: Of<'plan'>;
  problems?: Of<'problems'>;
  findings?: Of<'findings'>;
  results: Array<Of<'task_result'>>;
  merges: Array<Of<'merge'>>;
  checks: Array<Of<'check'>>;
  gates: Array<Of<'gate'>>;
  states: Array<Of<'task_state'>>;
  /** Each task's last Report summary, by task id: the agent's words. */
  summaries: Map<string, string>;
  /** Claims the events hold no evidence for, gathered by the sections as they go. */
  unverified: string[];
}

/** The run's own events in order, and each task's last Report summary (from its agent's `end` event). */
function eventsOf(entries: readonly RunStreamEntry[]): { run: RunEvent[]; summaries: Map<string, string> } {
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
  return { run, summaries };
}

function headerSection({ runId, created, end, verdict }: RunStory): string[] {
  const status = end?.status ?? verdict?.status ?? 'unfinished';
  return [
    `# ${firstLine(created.task)}`,
    '',
    `orca run \`${runId}\`: **${status}**${end?.detail ? ` (${end.detail})` : ''}. ` +
      `Base \`${short(created.base)}\`${end?.head ? `, head \`${short(end.head)}\`` : ''} on \`${created.integration_branch}\`.`,
    '',
    'Everything below comes from the run’s recorded events; each claim names its evidence. Words an agent wrote are quoted and marked as the agent’s.',
    '',
    '## Task',
    '',
    quote(created.task),
    '',
  ];
}

function subtasksSection(story: RunStory): string[] {
  const out = ['## Subtasks', ''];
  for (const subtask of story.plan?.subtasks ?? []) out.push(...subtaskSection(story, subtask), '');
  if (!story.plan) out.push('The run made no plan.', '');
  return out;
}

type Subtask = Of<'plan'>['subtasks'][number];

function subtaskSection(story: RunStory, subtask: Subtask): string[] {
  const { unverified } = story;
  const ofTask = <T extends { task_id?: string }>(events: T[]) => events.filter((event) => event.task_id === subtask.id);
  const state = ofTask(story.states).at(-1);
  const attempts = ofTask(story.results);
  const result = attempts.at(-1);
  const spent = attempts.reduce((sum, event) => sum + event.cost_usd, 0);
  const merge = ofTask(story.merges).at(-1);
  const out = [`### \`${subtask.id}\`: ${subtask.title} (${state?.status ?? 'not started'})`, ''];
  out.push(`- Owned paths: ${subtask.paths.length > 0 ? subtask.paths.map(code).join(', ') : '(none named)'}`);
  if (result?.commit) out.push(`- Commit: \`${result.commit}\` on \`${result.branch ?? '?'}\``);
  if (merge?.commit && (merge.outcome === 'merged' || merge.outcome === 'resolved'))
    out.push(`- Merged into the integration branch as \`${merge.commit}\` (${merge.outcome})`);
  if (result) out.push(`- Cost: $${spent.toFixed(4)} over ${attempts.length} attempt(s); transcript \`${result.transcript}\``);
  for (const check of ofTask(story.checks)) out.push(`- Check: ${checkLine(check, unverified)}`);
  for (const gate of latestGates(ofTask(story.gates))) out.push(`- ${gateLine(gate)}`);
  const summary = story.summaries.get(subtask.id);
  if (summary) out.push(`- The worker’s summary (the agent’s words, not checked):`, '', indent(quote(summary)));
  if (state && !['merged', 'verified'].includes(state.status)) {
    unverified.push(
      `Subtask \`${subtask.id}\` is ${state.status}${state.detail ? `: ${state.detail}` : ''}; its work is not in the result.`,
    );
  }
  return out;
}

function integrationChecksSection({ checks, unverified }: RunStory): string[] {
  const out = ['## Integration checks', ''];
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
  return out;
}

function gatesSection({ gates }: RunStory): string[] {
  const out = ['## Gates', ''];
  const runGates = latestGates(gates.filter((event) => event.task_id === undefined));
  if (runGates.length > 0) for (const gate of runGates) out.push(`- ${gateLine(gate)}`);
  else out.push('No run-level gate was recorded.');
  const failedTaskGates = gates.filter((event) => event.task_id !== undefined && !event.ok);
  if (failedTaskGates.length > 0) {
    out.push('', 'Gates that refused a subtask’s report:');
    for (const gate of latestGates(failedTaskGates)) out.push(`- \`${gate.task_id}\`: ${gateLine(gate)}`);
  }
  out.push('');
  return out;
}

function verificationSection({ verdict, problems, results, unverified }: RunStory): string[] {
  const out = ['## Verification', ''];
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
  return out;
}

/** Last, once every other section has added its own: with the exploration findings that did not hold at the base. */
function unverifiedSection({ findings, unverified }: RunStory): string[] {
  for (const fact of findings?.facts.filter((one) => !one.verified) ?? []) {
    unverified.push(`An exploration finding did not hold at the base (${fact.reason ?? 'no reason given'}): ${quoteInline(fact.fact)}`);
  }
  const out = ['## Unverified', ''];
  if (unverified.length > 0) for (const line of unverified) out.push(`- ${line}`);
  else out.push('Nothing the run recorded is left unverified.');
  out.push('');
  return out;
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
