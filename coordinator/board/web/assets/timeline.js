// A run on a time axis: one lane per agent slot (a worker process's host, pid and slot), a bar per
// agent from queued to ended, coloured by how it ended; the coordinator's lane carries the merges
// and the integration checks; waits for an answer to a permission request are marked on the bars,
// pending ones highlighted. It shows how parallel a run really was, and where it waited.

import { duration, el, inputTokens, money, tokens } from './elements.js';

const STEPS_S = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200];
const MAX_TICKS = 8;

/** The task whose bar the pointer is on, kept across redraws so its tooltip stays. */
let hovered;

export function renderTimeline(board, now) {
  const { run, tasks } = board;
  const section = el('section', { class: 'timeline', id: 'timeline', 'aria-label': 'timeline' }, el('h3', { text: 'Timeline' }));
  const agents = tasks.filter((task) => startOf(task) !== undefined);
  if (agents.length === 0) {
    section.append(el('p', { class: 'missing', text: 'no agent has been queued yet' }));
    return section;
  }
  const active = run.state === 'running' || run.state === 'starting';
  const checks = board.evidence.filter((item) => item.kind === 'check');
  const merges = tasks.filter((task) => task.merged_at !== undefined);
  const from = Math.min(...agents.map(startOf), ...(run.created_at !== undefined ? [run.created_at] : []));
  const ends = [
    ...agents.map((task) => endOf(task, now)),
    ...checks.map((check) => check.at),
    ...merges.map((task) => task.merged_at),
    ...(run.ended_at !== undefined ? [run.ended_at] : active ? [now] : []),
  ];
  const to = Math.max(from + 1_000, ...ends);
  const x = (at) => `${(((at - from) / (to - from)) * 100).toFixed(3)}%`;
  const width = (a, b) => `${Math.max(0.3, ((b - a) / (to - from)) * 100).toFixed(3)}%`;

  const waits = new Map();
  for (const ask of board.answered) waitsOf(waits, ask.task_id).push({ from: ask.at, to: ask.answer.at, pending: false, ask });
  for (const ask of board.asks) waitsOf(waits, ask.task_id).push({ from: ask.at, to: now, pending: true, ask });

  const lanes = new Map();
  for (const task of agents) {
    const lane = laneOf(task);
    if (!lanes.has(lane.key)) lanes.set(lane.key, { ...lane, tasks: [] });
    lanes.get(lane.key).tasks.push(task);
  }
  const ordered = [...lanes.values()].sort(
    (a, b) => a.order[0] - b.order[0] || a.order[1].localeCompare(b.order[1]) || a.order[2] - b.order[2] || a.order[3] - b.order[3],
  );

  const tip = tooltip();
  const show = (task, bar) => {
    hovered = task.task_id;
    tip.replaceChildren(
      ...tipLines(task, waits.get(task.task_id) ?? [], from, now).map((line, i) =>
        el('div', { class: i === 0 ? 'tip-head' : '', text: line }),
      ),
    );
    tip.hidden = false;
    // Fixed to the window, so no scrolling box clips it: below the bar, or above it when the window ends first.
    const at = bar.getBoundingClientRect();
    const { width, height } = tip.getBoundingClientRect();
    const below = at.bottom + 6;
    tip.style.left = `${Math.max(4, Math.min(at.left, innerWidth - width - 4))}px`;
    tip.style.top = `${below + height <= innerHeight ? below : Math.max(4, at.top - 6 - height)}px`;
  };
  const hide = () => {
    hovered = undefined;
    tip.hidden = true;
  };

  const coordinator = el(
    'div',
    { class: 'lane', 'data-lane': 'coordinator' },
    el('div', { class: 'lane-label', text: 'coordinator: merges, checks' }),
    el(
      'div',
      { class: 'lane-track' },
      ...merges.map((task) =>
        styled(
          el('span', {
            class: 'marker merge',
            'data-marker': 'merge',
            'data-task': task.task_id,
            title: `${task.task_id} merged${task.merge_commit ? ` at ${task.merge_commit.slice(0, 12)}` : ''}`,
          }),
          { left: x(task.merged_at) },
        ),
      ),
      ...checks.map((check) =>
        styled(
          el('span', {
            class: 'marker check',
            'data-marker': 'check',
            'data-ok': check.exit_code === 0 ? 'true' : 'false',
            title: `integration check ${check.command}: exit ${check.exit_code ?? 'none'}`,
          }),
          { left: x(check.at) },
        ),
      ),
    ),
  );

  const rows = ordered.map((lane) =>
    el(
      'div',
      { class: 'lane', 'data-lane': lane.key },
      el('div', { class: 'lane-label mono', title: lane.label, text: lane.label }),
      el(
        'div',
        { class: 'lane-track' },
        ...lane.tasks.map((task) => {
          const start = startOf(task);
          const end = endOf(task, now);
          const span = Math.max(1, end - start);
          const ran = task.started_at ?? end;
          const taskWaits = waits.get(task.task_id) ?? [];
          const bar = styled(
            el(
              'div',
              {
                class: 'bar',
                'data-bar': task.task_id,
                'data-status': task.status,
                'data-lane': lane.key,
                'data-asking': taskWaits.some((wait) => wait.pending) ? 'true' : undefined,
                tabindex: '0',
                'aria-describedby': 'timeline-tip',
              },
              styled(el('span', { class: 'queued' }), { width: `${(((ran - start) / span) * 100).toFixed(2)}%` }),
              ...taskWaits.map((wait) =>
                styled(el('span', { class: wait.pending ? 'wait pending' : 'wait', 'data-wait': wait.ask.id }), {
                  left: `${(((wait.from - start) / span) * 100).toFixed(2)}%`,
                  width: `${Math.max(1, ((wait.to - wait.from) / span) * 100).toFixed(2)}%`,
                }),
              ),
              el('span', { class: 'bar-label', text: task.task_id }),
            ),
            { left: x(start), width: width(start, end) },
          );
          bar.addEventListener('mouseenter', () => show(task, bar));
          bar.addEventListener('focus', () => show(task, bar));
          bar.addEventListener('mouseleave', hide);
          bar.addEventListener('blur', hide);
          return bar;
        }),
      ),
    ),
  );

  section.append(legend(), axis(from, to, x), coordinator, ...rows);
  if (hovered) {
    const bar = section.querySelector(`[data-bar="${CSS.escape(hovered)}"]`);
    const task = agents.find((candidate) => candidate.task_id === hovered);
    // Placed once the section is in the page (its boxes are measured then).
    if (bar && task) requestAnimationFrame(() => (bar.isConnected ? show(task, bar) : undefined));
    else hide();
  }
  return section;
}

/** The one tooltip of the page, outside every scrolling box. */
function tooltip() {
  let tip = document.getElementById('timeline-tip');
  if (!tip) {
    tip = el('div', { id: 'timeline-tip', class: 'timeline-tip', role: 'tooltip', hidden: true });
    document.body.append(tip);
  }
  return tip;
}

/** Hides the tooltip (the run on the page changed). */
export function hideTimelineTip() {
  hovered = undefined;
  const tip = document.getElementById('timeline-tip');
  if (tip) tip.hidden = true;
}

/** Positions set through the CSS object model: the page's Content-Security-Policy refuses inline style attributes. */
function styled(node, properties) {
  for (const [name, value] of Object.entries(properties)) node.style.setProperty(name, value);
  return node;
}

/** When the agent's bar begins: its job was queued (or, with no coordinator, its session started). */
function startOf(task) {
  return task.queued_at ?? task.started_at;
}

function endOf(task, now) {
  if (task.ended_at !== undefined) return Math.max(task.ended_at, startOf(task));
  return Math.max(now, startOf(task));
}

function laneOf(task) {
  if (task.host === undefined) return { key: 'waiting', label: 'waiting for a worker', order: [1, '', 0, 0] };
  const slot = task.slot ?? 0;
  return {
    key: `${task.host}|${task.pid ?? 0}|${slot}`,
    label: `${task.host} · pid ${task.pid ?? '?'} · slot ${slot + 1}`,
    order: [0, task.host, task.pid ?? 0, slot],
  };
}

function waitsOf(waits, taskId) {
  if (!waits.has(taskId)) waits.set(taskId, []);
  return waits.get(taskId);
}

function tipLines(task, waits, from, now) {
  const at = (time) => (time === undefined ? '–' : `+${duration(time - from)}`);
  const end = task.ended_at ?? now;
  const lines = [
    `${task.task_id} · ${task.role} · ${task.status}`,
    task.title,
    `${tokens(inputTokens(task.usage))} in / ${tokens(task.usage.output_tokens)} out tokens · ${money(task.cost_usd)}`,
    `queued ${at(task.queued_at)} · started ${at(task.started_at)} · ended ${task.ended_at === undefined ? 'not yet' : at(task.ended_at)}${task.started_at !== undefined ? ` (ran ${duration(end - task.started_at)})` : ''}`,
  ];
  if (task.host) lines.push(`on ${task.host} pid ${task.pid ?? '?'} slot ${(task.slot ?? 0) + 1}`);
  const pending = waits.filter((wait) => wait.pending);
  if (pending.length > 0) lines.push(`waiting for an answer: ${pending.map((wait) => `${wait.ask.tool} ${wait.ask.summary}`).join('; ')}`);
  const answered = waits.filter((wait) => !wait.pending);
  if (answered.length > 0) {
    const total = answered.reduce((sum, wait) => sum + (wait.to - wait.from), 0);
    lines.push(`waited ${duration(total)} for ${answered.length} answer(s)`);
  }
  return lines.filter(Boolean);
}

function axis(from, to, x) {
  const spanS = (to - from) / 1000;
  const step = STEPS_S.find((candidate) => spanS / candidate <= MAX_TICKS) ?? STEPS_S[STEPS_S.length - 1];
  const ticks = [];
  for (let s = 0; s <= spanS; s += step)
    ticks.push(styled(el('span', { class: 'tick', text: `+${duration(s * 1000)}` }), { left: x(from + s * 1000) }));
  return el('div', { class: 'lane axis' }, el('div', { class: 'lane-label' }), el('div', { class: 'lane-track' }, ...ticks));
}

function legend() {
  const item = (cls, text) => el('span', { class: 'legend-item' }, el('span', { class: `swatch ${cls}` }), text);
  return el(
    'div',
    { class: 'timeline-legend' },
    item('queued-swatch', 'queued'),
    item('running-swatch', 'running'),
    item('merged-swatch', 'merged / done'),
    item('failed-swatch', 'failed'),
    item('aborted-swatch', 'aborted'),
    item('wait-swatch', 'waiting for an answer'),
    item('merge-swatch', 'merge'),
    item('check-swatch', 'integration check'),
  );
}
