// The web board's page: the runs, one run's task DAG as cards in columns with its dependencies
// drawn, a task's detail, live over SSE. Everything shown comes from the JSON API; text from runs
// (task titles, model output, diffs) is only ever set as text, never parsed as HTML.

const COLUMNS = [
  { id: 'pending', title: 'pending', statuses: ['pending', 'queued'] },
  { id: 'running', title: 'running', statuses: ['running'] },
  { id: 'merged', title: 'merged / done', statuses: ['completed', 'merged'] },
  { id: 'verified', title: 'verified', statuses: ['verified'] },
  { id: 'failed', title: 'failed / stopped', statuses: ['failed', 'blocked', 'aborted', 'cancelled'] },
];
const ENDED = new Set(['completed', 'merged', 'verified', 'failed', 'blocked', 'aborted', 'cancelled']);
const RUNS_EVERY_MS = 5000;
const DETAIL_EVERY_MS = 2000;

const state = { runId: undefined, board: undefined, events: undefined, task: undefined, tab: 'transcript', detailAt: 0, detailFor: undefined };

function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'text') node.textContent = value;
    else if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children) if (child !== undefined && child !== null) node.append(child);
  return node;
}

function duration(ms) {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}

function tokens(n) {
  if (n < 1000) return String(n);
  if (n < 1e6) return `${(n / 1000).toFixed(n < 10000 ? 1 : 0)}k`;
  return `${(n / 1e6).toFixed(1)}M`;
}

function money(usd) {
  return `$${usd.toFixed(usd < 1 ? 4 : 2)}`;
}

function inputTokens(usage) {
  return usage.input_tokens + usage.cache_read_tokens + usage.cache_creation_tokens;
}

/** A span whose text is kept current by the clock: time since `from`, until `to` when it is set. */
function elapsed(from, to) {
  if (from === undefined || from === null) return el('span', { text: '–' });
  return el('span', { class: 'elapsed', 'data-from': from, 'data-to': to ?? '', text: duration((to ?? Date.now()) - from) });
}

async function api(path, init) {
  const response = await fetch(path, { headers: { accept: 'application/json' }, ...init });
  const body = await response.json().catch(() => ({ error: `${response.status} ${response.statusText}` }));
  if (!response.ok) throw new Error(body.error ?? `${response.status} ${response.statusText}`);
  return body;
}

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
          { href: `#run=${encodeURIComponent(run.run_id)}`, 'aria-current': run.run_id === state.runId ? 'true' : 'false', 'data-run': run.run_id },
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
  closeDetail();
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
    refreshDetail();
  });
  events.addEventListener('error', (event) => {
    if (state.events !== events) return;
    live.dataset.state = 'lost';
    live.textContent = event.data ? `stream failed: ${event.data}` : 'reconnecting…';
  });
}

// ---- one run ------------------------------------------------------------------------------

function renderRun() {
  const { run, tasks, notes } = state.board;
  const main = document.getElementById('run');
  const active = run.state === 'running' || run.state === 'starting';
  const abort = el('button', {
    id: 'abort',
    class: 'abort',
    type: 'button',
    disabled: !active || run.abort_requested,
    text: run.abort_requested && active ? 'Abort requested' : 'Abort run',
    onclick: () => abortRun(run.run_id),
  });
  const facts = [
    run.phase && active ? el('span', { text: `phase ${run.phase}` }) : undefined,
    run.repo ? el('span', { class: 'mono', text: `${run.repo}${run.base ? ` @ ${run.base.slice(0, 12)}` : ''}` }) : undefined,
    run.integration_branch ? el('span', { class: 'mono', text: `→ ${run.integration_branch}${run.head ? ` (${run.head.slice(0, 12)})` : ''}` }) : undefined,
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
      el('h2', {}, el('span', { class: 'mono', text: run.run_id }), ' ', el('span', { id: 'run-state', class: 'badge', 'data-state': run.state, text: run.state })),
      run.task ? el('div', { class: 'run-task-text', text: run.task }) : undefined,
      el('div', { class: 'facts' }, ...facts),
    ),
    el('div', { class: 'actions' }, abort),
  );
  const verdict = run.verdict
    ? el('p', { class: 'verdict', 'data-verdict': run.verdict, text: `Verdict ${run.verdict}${run.verdict_detail ? `: ${run.verdict_detail}` : ''}` })
    : run.status && run.status !== 'running' && run.detail
      ? el('p', { class: 'verdict', 'data-verdict': run.status, text: `${run.status}: ${run.detail}` })
      : undefined;
  const dag = renderDag(tasks);
  const noteList = notes.length > 0 ? el('div', { class: 'notes' }, el('h3', { text: 'Coordinator notes' }), el('ul', {}, ...notes.map((note) => el('li', { text: note.message })))) : undefined;
  main.replaceChildren(head, ...(verdict ? [verdict] : []), dag, ...(noteList ? [noteList] : []));
  drawEdges(dag, tasks);
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

function renderDag(tasks) {
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
      el('div', { class: 'cards' }, ...members.map(renderCard)),
    );
  });
  return el('div', { class: 'dag' }, svg, ...columns);
}

function renderCard(task) {
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
      'aria-pressed': state.task === task.task_id ? 'true' : 'false',
      onclick: () => openDetail(task.task_id),
    },
    el('div', { class: 'card-top' }, el('span', { class: 'task-id', text: task.task_id }), el('span', { class: 'status', text: `${task.status} · ${task.role}` })),
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
  for (const [name, value] of Object.entries({ id: 'arrow', viewBox: '0 0 10 10', refX: '9', refY: '5', markerWidth: '7', markerHeight: '7', orient: 'auto' })) marker.setAttribute(name, value);
  const tip = document.createElementNS('http://www.w3.org/2000/svg', 'path');
  tip.setAttribute('d', 'M 0 0 L 10 5 L 0 10 z');
  tip.setAttribute('fill', '#8c95a8');
  marker.append(tip);
  defs.append(marker);
  svg.replaceChildren(defs, ...paths);
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

// ---- a task's detail ----------------------------------------------------------------------

function openDetail(taskId) {
  state.task = taskId;
  state.detailFor = undefined;
  document.getElementById('detail').hidden = false;
  for (const card of document.querySelectorAll('.card')) card.setAttribute('aria-pressed', card.dataset.task === taskId ? 'true' : 'false');
  loadDetail();
  if (state.board) drawEdges(document.querySelector('.dag'), state.board.tasks);
}

function closeDetail() {
  state.task = undefined;
  document.getElementById('detail').hidden = true;
  for (const card of document.querySelectorAll('.card')) card.setAttribute('aria-pressed', 'false');
  if (state.board) drawEdges(document.querySelector('.dag'), state.board.tasks);
}

/** On a board update, the open detail is read again when its task moved (at most every few seconds). */
function refreshDetail() {
  if (!state.task || !state.board) return;
  const task = state.board.tasks.find((candidate) => candidate.task_id === state.task);
  if (!task || task.updated_at === state.detailFor || Date.now() - state.detailAt < DETAIL_EVERY_MS) return;
  loadDetail();
}

async function loadDetail() {
  const runId = state.runId;
  const taskId = state.task;
  state.detailAt = Date.now();
  document.getElementById('detail-title').textContent = `task ${taskId}`;
  const body = document.getElementById('detail-body');
  try {
    const detail = await api(`/api/runs/${encodeURIComponent(runId)}/tasks/${encodeURIComponent(taskId)}`);
    if (state.task !== taskId || state.runId !== runId) return;
    state.detailFor = detail.task.updated_at;
    state.detail = detail;
    renderDetail();
  } catch (error) {
    body.replaceChildren(el('p', { class: 'missing', text: `The detail could not be read: ${error.message}` }));
  }
}

function renderDetail() {
  const detail = state.detail;
  const body = document.getElementById('detail-body');
  for (const tab of document.querySelectorAll('.tabs button')) tab.setAttribute('aria-selected', tab.dataset.tab === state.tab ? 'true' : 'false');
  const task = detail.task;
  const facts = el(
    'p',
    { class: 'mono' },
    [
      `${task.status} · ${task.role} · attempt ${task.attempt}`,
      task.host ? `on ${task.host}${task.pid ? ` pid ${task.pid}` : ''}` : undefined,
      task.branch ? `branch ${task.branch}` : undefined,
      task.worktree ? `worktree ${task.worktree}` : undefined,
      task.ports.length > 0 ? `ports ${task.ports.join(', ')}` : undefined,
      task.verdict ? `verdict ${task.verdict}` : undefined,
      task.error ? `error: ${task.error}` : undefined,
    ]
      .filter(Boolean)
      .join('\n'),
  );
  let content;
  if (state.tab === 'transcript') {
    const t = detail.transcript;
    content = t.missing
      ? el('p', { class: 'missing', text: t.missing })
      : el(
          'div',
          { class: 'transcript' },
          el('p', { class: 'missing mono', text: `${t.cut ? 'the end of ' : ''}${t.path}` }),
          ...t.lines.map((line) => el('div', { class: 'line' }, el('span', { class: 'type mono', text: line.type }), el('pre', { text: line.text }))),
        );
  } else if (state.tab === 'diff') {
    const d = detail.diff;
    content = d.missing
      ? el('p', { class: 'missing', text: d.missing })
      : el(
          'div',
          { class: 'diff' },
          el('p', { class: 'mono', text: `git diff ${d.base.slice(0, 12)}..${d.commit.slice(0, 12)} in ${d.repo}` }),
          el('pre', { text: d.stat }),
          el(
            'pre',
            {},
            ...d.text.split('\n').map((line) =>
              el('div', { class: line.startsWith('+') && !line.startsWith('+++') ? 'add' : line.startsWith('-') && !line.startsWith('---') ? 'del' : line.startsWith('@@') ? 'hunk' : '', text: line || ' ' }),
            ),
          ),
          d.cut ? el('p', { class: 'missing', text: 'the diff is cut here: see the branch for the rest' }) : undefined,
        );
  } else {
    content =
      detail.evidence.length === 0
        ? el('p', { class: 'missing', text: 'no checks or gates are recorded for this task' })
        : el(
            'div',
            {},
            ...detail.evidence.map((item) =>
              item.kind === 'gate'
                ? el('div', { class: 'evidence-item' }, el('strong', { class: item.ok ? 'ok' : 'bad', text: `gate ${item.name}: ${item.ok ? 'ok' : 'failed'}` }), el('div', { text: item.reason }))
                : el(
                    'div',
                    { class: 'evidence-item' },
                    el('strong', { class: item.exit_code === 0 ? 'ok' : 'bad', text: `${item.command}: exit ${item.exit_code ?? 'none'}${item.tests_executed === null ? '' : `, ${item.tests_executed} tests`}` }),
                    el('div', { class: 'mono', text: `on ${item.tree.slice(0, 12)} · log ${item.log}` }),
                    item.log_missing ? el('p', { class: 'missing', text: item.log_missing }) : el('pre', { text: item.log_tail }),
                  ),
            ),
          );
  }
  body.replaceChildren(facts, content);
}

// ---- start --------------------------------------------------------------------------------

function tick() {
  const now = Date.now();
  for (const span of document.querySelectorAll('.elapsed')) {
    const to = span.dataset.to ? Number(span.dataset.to) : now;
    span.textContent = duration(to - Number(span.dataset.from));
  }
}

document.getElementById('detail-close').addEventListener('click', closeDetail);
for (const tab of document.querySelectorAll('.tabs button')) {
  tab.addEventListener('click', () => {
    state.tab = tab.dataset.tab;
    if (state.detail) renderDetail();
  });
}
window.addEventListener('hashchange', () => {
  const runId = runFromLocation();
  if (runId) selectRun(runId);
});
window.addEventListener('resize', () => {
  if (state.board) drawEdges(document.querySelector('.dag'), state.board.tasks);
});

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
