// The web board's page: the runs, one run's task DAG as cards in columns with its dependencies
// drawn, the permission requests its agents wait on, its timeline, a task's detail, live over
// SSE. Everything shown comes from the JSON API.

import { askCards, forgetAnswered } from './asks.js';
import { closeDetail, openDetail, openTask, refreshDetail, setUpDetail } from './detail.js';
import { api, duration, el, elapsed, inputTokens, money, tokens } from './elements.js';
import { hideTimelineTip, renderTimeline } from './timeline.js';

const COLUMNS = [
  { id: 'pending', title: 'pending', statuses: ['pending', 'queued'] },
  { id: 'running', title: 'running', statuses: ['running'] },
  { id: 'merged', title: 'merged / done', statuses: ['completed', 'merged'] },
  { id: 'verified', title: 'verified', statuses: ['verified'] },
  { id: 'failed', title: 'failed / stopped', statuses: ['failed', 'blocked', 'aborted', 'cancelled'] },
];
const ENDED = new Set(['completed', 'merged', 'verified', 'failed', 'blocked', 'aborted', 'cancelled']);
const RUNS_EVERY_MS = 5000;
const RETRY_MS = 1000;

const state = { runId: undefined, board: undefined, events: undefined };

// ---- runs ---------------------------------------------------------------------------------

async function loadRuns() {
  const { runs } = await api('/api/runs');
  const list = document.getElementById('runs');
  list.replaceChildren(
    ...runs.map((run) =>
      el(
        'li',
        {},
        el(
          'a',
          {
            href: `#run=${encodeURIComponent(run.run_id)}`,
            'aria-current': run.run_id === state.runId ? 'true' : 'false',
            'data-run': run.run_id,
          },
          el('span', { class: 'run-id', text: run.run_id }),
          ' ',
          el('span', { class: 'badge', 'data-state': run.state, text: run.state }),
          el('span', { class: 'run-task', text: run.task ?? `${run.kind === 'agent' ? 'orca agent' : 'run'} · ${run.task_count} task(s)` }),
        ),
      ),
    ),
  );
  if (!state.runId && runs.length > 0) selectRun(runs[0].run_id);
}

function runFromLocation() {
  const match = /run=([^&]+)/.exec(location.hash);
  return match ? decodeURIComponent(match[1]) : undefined;
}

function selectRun(runId) {
  if (runId === state.runId) return;
  state.runId = runId;
  state.board = undefined;
  hideTimelineTip();
  closeDetail(redrawEdges);
  if (location.hash !== `#run=${encodeURIComponent(runId)}`) history.replaceState(null, '', `#run=${encodeURIComponent(runId)}`);
  for (const link of document.querySelectorAll('#runs a')) link.setAttribute('aria-current', link.dataset.run === runId ? 'true' : 'false');
  follow(runId);
}

// ---- live updates -------------------------------------------------------------------------

function follow(runId) {
  state.events?.close();
  const live = document.getElementById('live');
  live.dataset.state = 'connecting';
  live.textContent = 'connecting…';
  const events = new EventSource(`/api/runs/${encodeURIComponent(runId)}/events`);
  state.events = events;
  events.addEventListener('board', (event) => {
    if (state.events !== events) return;
    live.dataset.state = 'live';
    live.textContent = 'live';
    state.board = JSON.parse(event.data);
    renderRun();
    const listed = document.querySelector(`#runs a[data-run="${CSS.escape(runId)}"] .badge`);
    if (listed && listed.dataset.state !== state.board.run.state) refreshRuns();
    refreshDetail(state.board);
  });
  events.addEventListener('error', (event) => {
    if (state.events !== events) return;
    live.dataset.state = 'lost';
    live.textContent = event.data ? `stream failed: ${event.data}` : 'reconnecting…';
    // EventSource retries a dropped stream itself, but not one refused outright (a run whose id
    // was printed before its first event was recorded is a 404 for a moment): try again shortly.
    if (events.readyState === EventSource.CLOSED) {
      setTimeout(() => {
        if (state.events === events) follow(runId);
      }, RETRY_MS);
    }
  });
}

// ---- one run ------------------------------------------------------------------------------

function renderRun() {
  const { run, tasks, notes, asks } = state.board;
  const main = document.getElementById('run');
  forgetAnswered(asks);
  // A reason being typed into a request's card survives the redraw, focus and caret included.
  const focused = document.activeElement?.dataset?.askReason;
  const caret = focused ? document.activeElement.selectionStart : undefined;
  const active = run.state === 'running' || run.state === 'starting';
  const abort = abortButton(run, active);
  const facts = [
    run.phase && active ? el('span', { text: `phase ${run.phase}` }) : undefined,
    run.repo ? el('span', { class: 'mono', text: `${run.repo}${run.base ? ` @ ${run.base.slice(0, 12)}` : ''}` }) : undefined,
    run.integration_branch
      ? el('span', { class: 'mono', text: `→ ${run.integration_branch}${run.head ? ` (${run.head.slice(0, 12)})` : ''}` })
      : undefined,
    el('span', { text: `${tokens(inputTokens(run.usage))} in / ${tokens(run.usage.output_tokens)} out · ${money(run.cost_usd)}` }),
    el('span', {}, 'elapsed ', elapsed(run.created_at, run.ended_at)),
    run.scripted ? el('span', { text: 'Scripted model (no LLM)' }) : run.model ? el('span', { text: run.model }) : undefined,
  ];
  const head = el(
    'div',
    { class: 'run-head' },
    el(
      'div',
      {},
      el(
        'h2',
        {},
        el('span', { class: 'mono', text: run.run_id }),
        ' ',
        el('span', { id: 'run-state', class: 'badge', 'data-state': run.state, text: run.state }),
      ),
      run.task ? el('div', { class: 'run-task-text', text: run.task }) : undefined,
      el('div', { class: 'facts' }, ...facts),
    ),
    el('div', { class: 'actions' }, abort),
  );
  const verdict = run.verdict
    ? el('p', {
        class: 'verdict',
        'data-verdict': run.verdict,
        text: `Verdict ${run.verdict}${run.verdict_detail ? `: ${run.verdict_detail}` : ''}`,
      })
    : run.status && run.status !== 'running' && run.detail
      ? el('p', { class: 'verdict', 'data-verdict': run.status, text: `${run.status}: ${run.detail}` })
      : undefined;
  const result = state.board.result
    ? el('p', { id: 'run-result', class: 'result', 'data-result': state.board.result.state, text: resultText(state.board.result) })
    : undefined;
  const dag = renderDag(tasks, asks);
  const pending =
    asks.length > 0
      ? el('p', { class: 'asks-waiting', role: 'status', text: `${asks.length} permission request(s) wait for an answer` })
      : undefined;
  const noteList =
    notes.length > 0
      ? el(
          'div',
          { class: 'notes' },
          el('h3', { text: 'Coordinator notes' }),
          el('ul', {}, ...notes.map((note) => el('li', { text: note.message }))),
        )
      : undefined;
  const checked = renderChecked(run);
  main.replaceChildren(
    head,
    ...(verdict ? [verdict] : []),
    ...(result ? [result] : []),
    ...(pending ? [pending] : []),
    dag,
    renderTimeline(state.board, Date.now()),
    ...(noteList ? [noteList] : []),
    ...checked,
  );
  drawEdges(dag, tasks);
  if (focused) {
    const input = main.querySelector(`[data-ask-reason="${CSS.escape(focused)}"]`);
    if (input && !input.disabled) {
      input.focus();
      input.setSelectionRange(caret, caret);
    }
  }
}

/** The timeline alone, again (the clock moves the running bars). */
function redrawTimeline() {
  const shown = document.getElementById('timeline');
  if (shown && state.board) shown.replaceWith(renderTimeline(state.board, Date.now()));
}

/** Where the run's result stands in git (runResultState.ts): one not merged yet says how to take it. */
function resultText(result) {
  const at = result.head ? ` at ${result.head.slice(0, 12)}` : '';
  if (result.state === 'not_merged') return `Result ${result.branch}${at}: not merged yet (git merge ${result.branch})`;
  if (result.state === 'merged') return `Result ${result.branch}${at}: merged into ${result.merged_into.join(', ')}`;
  if (result.state === 'no_changes') return `Result ${result.branch}: no changes (still at the base)`;
  if (result.state === 'removed') return `Result ${result.branch}: removed from the repository`;
  return `Result ${result.branch}: its repository is not on this host`;
}

/** What the host checked of the agents' citations: the Explore findings and files at the base, the Verification problems on the merged tree. */
function renderChecked(run) {
  const mark = (verified) =>
    el('span', { class: 'check-mark', 'data-verified': String(verified), text: verified ? 'verified' : 'unverified' });
  const sections = [];
  if (run.facts.length > 0) {
    const unverified = run.facts.filter((fact) => !fact.verified).length;
    sections.push(
      el(
        'div',
        { class: 'checked', id: 'findings' },
        el('h3', { text: `Explore findings: ${run.facts.length - unverified} verified at the base, ${unverified} unverified` }),
        el(
          'ul',
          {},
          ...run.facts.map((fact) =>
            el(
              'li',
              { 'data-verified': String(fact.verified) },
              mark(fact.verified),
              ' ',
              el('span', { text: fact.fact }),
              ' ',
              el('span', { class: 'mono', text: fact.evidence }),
              fact.reason ? el('div', { class: 'reason', text: fact.reason }) : undefined,
            ),
          ),
        ),
      ),
    );
  }
  const unreadable = run.files_read.filter((file) => !file.verified);
  if (unreadable.length > 0) {
    sections.push(
      el(
        'div',
        { class: 'checked', id: 'files-read' },
        el('h3', {
          text: `Files read that do not match the base (${unreadable.length} of ${run.files_read.length}): not handed to workers`,
        }),
        el(
          'ul',
          {},
          ...unreadable.map((file) =>
            el(
              'li',
              {},
              mark(false),
              ' ',
              el('span', { class: 'mono', text: file.path }),
              el('div', { class: 'reason', text: file.reason }),
            ),
          ),
        ),
      ),
    );
  }
  if (run.problems.length > 0) {
    sections.push(
      el(
        'div',
        { class: 'checked', id: 'problems' },
        el('h3', { text: 'Problems the Verification agent reported' }),
        el(
          'ul',
          {},
          ...run.problems.map((problem) =>
            el(
              'li',
              { 'data-verified': String(problem.verified) },
              mark(problem.verified),
              ' ',
              el('span', { class: 'mono', text: `${problem.file}${problem.line ? `:${problem.line}` : ''}` }),
              ' ',
              el('span', { text: problem.what }),
              problem.reason ? el('div', { class: 'reason', text: problem.reason }) : undefined,
            ),
          ),
        ),
      ),
    );
  }
  return sections;
}

/** Depth in the DAG: a task sits below everything it waits for. */
function depths(tasks) {
  const byId = new Map(tasks.map((task) => [task.task_id, task]));
  const memo = new Map();
  const depth = (task, seen = new Set()) => {
    if (memo.has(task.task_id)) return memo.get(task.task_id);
    if (seen.has(task.task_id)) return 0;
    seen.add(task.task_id);
    const parents = task.depends_on.map((id) => byId.get(id)).filter(Boolean);
    const value = parents.length === 0 ? 0 : 1 + Math.max(...parents.map((parent) => depth(parent, seen)));
    memo.set(task.task_id, value);
    return value;
  };
  return new Map(tasks.map((task) => [task.task_id, depth(task)]));
}

function renderDag(tasks, asks) {
  const depth = depths(tasks);
  const order = new Map(tasks.map((task, index) => [task.task_id, index]));
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('class', 'edges');
  const columns = COLUMNS.map((column) => {
    const members = tasks
      .filter((task) => column.statuses.includes(task.status))
      .sort((a, b) => depth.get(a.task_id) - depth.get(b.task_id) || order.get(a.task_id) - order.get(b.task_id));
    return el(
      'section',
      { class: 'column', 'data-column': column.id },
      el('h3', {}, el('span', { text: column.title }), el('span', { text: String(members.length) })),
      el(
        'div',
        { class: 'cards' },
        ...members.flatMap((task) => {
          const waiting = asks.filter((ask) => ask.task_id === task.task_id);
          return [renderCard(task, waiting.length > 0), ...askCards(state.runId, waiting)];
        }),
      ),
    );
  });
  return el('div', { class: 'dag' }, svg, ...columns);
}

function renderCard(task, asking) {
  const ended = ENDED.has(task.status);
  const numbers = [
    el('span', {}, elapsed(task.started_at, ended ? (task.ended_at ?? task.started_at) : undefined)),
    el('span', { text: `${tokens(inputTokens(task.usage))}/${tokens(task.usage.output_tokens)} tok` }),
    el('span', { text: money(task.cost_usd) }),
    task.attempt > 1 ? el('span', { text: `attempt ${task.attempt}` }) : undefined,
  ];
  return el(
    'button',
    {
      type: 'button',
      class: 'card',
      id: `task-${task.task_id}`,
      'data-task': task.task_id,
      'data-status': task.status,
      'data-asking': asking ? 'true' : undefined,
      'aria-pressed': openTask() === task.task_id ? 'true' : 'false',
      onclick: () => openDetail(state.runId, task.task_id, redrawEdges),
    },
    el(
      'div',
      { class: 'card-top' },
      el('span', { class: 'task-id', text: task.task_id }),
      el('span', { class: 'status', text: `${task.status} · ${task.role}` }),
    ),
    task.title ? el('div', { class: 'title', text: task.title }) : undefined,
    el('div', { class: 'activity', title: task.activity, text: task.activity }),
    el('div', { class: 'numbers' }, ...numbers),
  );
}

function drawEdges(dag, tasks) {
  const svg = dag.querySelector('svg.edges');
  const box = dag.getBoundingClientRect();
  const paths = [];
  for (const task of tasks) {
    const to = dag.querySelector(`[data-task="${CSS.escape(task.task_id)}"]`);
    for (const dependency of task.depends_on) {
      const from = dag.querySelector(`[data-task="${CSS.escape(dependency)}"]`);
      if (!from || !to) continue;
      const a = from.getBoundingClientRect();
      const b = to.getBoundingClientRect();
      let d;
      if (Math.abs(a.left - b.left) < 4) {
        // Same column: around the right-hand side, from the bottom of one to the top of the other.
        const x = a.right - box.left;
        const y1 = a.top + a.height / 2 - box.top;
        const y2 = b.top + b.height / 2 - box.top;
        d = `M ${x} ${y1} C ${x + 24} ${y1}, ${x + 24} ${y2}, ${x} ${y2}`;
      } else {
        const rightward = a.left < b.left;
        const x1 = (rightward ? a.right : a.left) - box.left;
        const x2 = (rightward ? b.left : b.right) - box.left;
        const y1 = a.top + a.height / 2 - box.top;
        const y2 = b.top + b.height / 2 - box.top;
        const bend = (x2 - x1) / 2;
        d = `M ${x1} ${y1} C ${x1 + bend} ${y1}, ${x2 - bend} ${y2}, ${x2} ${y2}`;
      }
      const path = document.createElementNS('http://www.w3.org/2000/svg', 'path');
      path.setAttribute('d', d);
      path.setAttribute('data-edge', `${dependency}->${task.task_id}`);
      path.setAttribute('marker-end', 'url(#arrow)');
      paths.push(path);
    }
  }
  const defs = document.createElementNS('http://www.w3.org/2000/svg', 'defs');
  const marker = document.createElementNS('http://www.w3.org/2000/svg', 'marker');
  for (const [name, value] of Object.entries({
    id: 'arrow',
    viewBox: '0 0 10 10',
    refX: '9',
    refY: '5',
    markerWidth: '7',
    markerHeight: '7',
    orient: 'auto',
  }))
    marker.setAttribute(name, value);
  const tip = document.createElementNS('http://www.w3.org/2000/svg', 'path');
  tip.setAttribute('d', 'M 0 0 L 10 5 L 0 10 z');
  tip.setAttribute('fill', '#8c95a8');
  marker.append(tip);
  defs.append(marker);
  svg.replaceChildren(defs, ...paths);
}

/**
 * The run's abort button: one element across redraws (the run's view is drawn anew on every event
 * and every second), so that a click whose press and release straddle a redraw still lands on the
 * button it was aimed at instead of being lost on a replaced one.
 */
let shownAbort;
function abortButton(run, active) {
  if (shownAbort?.dataset.run !== run.run_id) {
    const runId = run.run_id;
    shownAbort = el('button', { id: 'abort', class: 'abort', type: 'button', 'data-run': runId, onclick: () => abortRun(runId) });
  }
  shownAbort.disabled = !active || run.abort_requested;
  shownAbort.textContent = run.abort_requested && active ? 'Abort requested' : 'Abort run';
  return shownAbort;
}

async function abortRun(runId) {
  if (!confirm(`Abort run ${runId}? Its agents stop and their shells are killed; worktrees are kept.`)) return;
  const button = document.getElementById('abort');
  button.disabled = true;
  try {
    await api(`/api/runs/${encodeURIComponent(runId)}/abort`, { method: 'POST' });
    button.textContent = 'Abort requested';
  } catch (error) {
    button.disabled = false;
    alert(`The abort was not sent: ${error.message}`);
  }
}

// ---- start --------------------------------------------------------------------------------

function tick() {
  const now = Date.now();
  for (const span of document.querySelectorAll('.elapsed')) {
    const to = span.dataset.to ? Number(span.dataset.to) : now;
    span.textContent = duration(to - Number(span.dataset.from));
  }
  for (const span of document.querySelectorAll('.countdown')) span.textContent = duration(Number(span.dataset.until) - now);
  const run = state.board?.run;
  if (run && (run.state === 'running' || run.state === 'starting')) redrawTimeline();
}

function redrawEdges() {
  if (state.board) drawEdges(document.querySelector('.dag'), state.board.tasks);
}

setUpDetail(redrawEdges);
window.addEventListener('hashchange', () => {
  const runId = runFromLocation();
  if (runId) selectRun(runId);
});
window.addEventListener('resize', redrawEdges);

const initial = runFromLocation();
if (initial) selectRun(initial);
function refreshRuns() {
  loadRuns().catch((error) => {
    document.getElementById('runs').replaceChildren(el('li', { class: 'missing', text: `runs could not be read: ${error.message}` }));
  });
}
refreshRuns();
setInterval(refreshRuns, RUNS_EVERY_MS);
setInterval(tick, 1000);
