// A task's detail, in the side panel: the tail of its transcript, its diff, its evidence.

import { api, el } from './elements.js';

const DETAIL_EVERY_MS = 2000;

const detail = { runId: undefined, task: undefined, tab: 'transcript', shown: undefined, loadedAt: 0, loadedFor: undefined };

/** Wires the panel's close button and tabs. */
export function setUpDetail(onLayout) {
  document.getElementById('detail-close').addEventListener('click', () => closeDetail(onLayout));
  for (const tab of document.querySelectorAll('.tabs button')) {
    tab.addEventListener('click', () => {
      detail.tab = tab.dataset.tab;
      if (detail.shown) renderDetail();
    });
  }
}

/** Opens the panel on a task of a run; `onLayout` is told when the panel's coming or going moves the cards. */
export function openDetail(runId, taskId, onLayout) {
  detail.runId = runId;
  detail.task = taskId;
  detail.loadedFor = undefined;
  document.getElementById('detail').hidden = false;
  for (const card of document.querySelectorAll('.card')) card.setAttribute('aria-pressed', card.dataset.task === taskId ? 'true' : 'false');
  loadDetail();
  onLayout();
}

export function closeDetail(onLayout) {
  detail.task = undefined;
  document.getElementById('detail').hidden = true;
  for (const card of document.querySelectorAll('.card')) card.setAttribute('aria-pressed', 'false');
  onLayout();
}

/** The task whose detail is open, if any. */
export function openTask() {
  return detail.task;
}

/** On a board update, the open detail is read again when its task moved (at most every few seconds). */
export function refreshDetail(board) {
  if (!detail.task || board.run.run_id !== detail.runId) return;
  const task = board.tasks.find((candidate) => candidate.task_id === detail.task);
  if (!task || task.updated_at === detail.loadedFor || Date.now() - detail.loadedAt < DETAIL_EVERY_MS) return;
  loadDetail();
}

async function loadDetail() {
  const { runId, task: taskId } = detail;
  detail.loadedAt = Date.now();
  document.getElementById('detail-title').textContent = `task ${taskId}`;
  const body = document.getElementById('detail-body');
  try {
    const shown = await api(`/api/runs/${encodeURIComponent(runId)}/tasks/${encodeURIComponent(taskId)}`);
    if (detail.task !== taskId || detail.runId !== runId) return;
    detail.loadedFor = shown.task.updated_at;
    detail.shown = shown;
    renderDetail();
  } catch (error) {
    body.replaceChildren(el('p', { class: 'missing', text: `The detail could not be read: ${error.message}` }));
  }
}

function renderDetail() {
  const shown = detail.shown;
  const body = document.getElementById('detail-body');
  for (const tab of document.querySelectorAll('.tabs button'))
    tab.setAttribute('aria-selected', tab.dataset.tab === detail.tab ? 'true' : 'false');
  const task = shown.task;
  const facts = el(
    'p',
    { class: 'mono detail-facts' },
    [
      `${task.status} · ${task.role} · attempt ${task.attempt}`,
      task.host ? `on ${task.host}${task.pid ? ` pid ${task.pid}` : ''}` : undefined,
      task.branch ? `branch ${task.branch}` : undefined,
      task.worktree ? `worktree ${task.worktree}` : undefined,
      task.ports.length > 0 ? `ports ${task.ports.join(', ')}` : undefined,
      task.sandbox ? `sandbox ${task.sandbox === 'none' ? 'none (its commands ran unsandboxed)' : task.sandbox}` : undefined,
      task.verdict ? `verdict ${task.verdict}` : undefined,
      task.status_detail ? `why: ${task.status_detail}` : undefined,
      task.error && task.error !== task.status_detail ? `error: ${task.error}` : undefined,
    ]
      .filter(Boolean)
      .join('\n'),
  );
  let content;
  if (detail.tab === 'transcript') {
    const t = shown.transcript;
    content = t.missing
      ? el('p', { class: 'missing', text: t.missing })
      : el(
          'div',
          { class: 'transcript' },
          el('p', { class: 'missing mono', text: `${t.cut ? 'the end of ' : ''}${t.path}` }),
          ...t.lines.map((line) =>
            el('div', { class: 'line' }, el('span', { class: 'type mono', text: line.type }), el('pre', { text: line.text })),
          ),
        );
  } else if (detail.tab === 'diff') {
    const d = shown.diff;
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
              el('div', {
                class:
                  line.startsWith('+') && !line.startsWith('+++')
                    ? 'add'
                    : line.startsWith('-') && !line.startsWith('---')
                      ? 'del'
                      : line.startsWith('@@')
                        ? 'hunk'
                        : '',
                text: line || ' ',
              }),
            ),
          ),
          d.cut ? el('p', { class: 'missing', text: 'the diff is cut here: see the branch for the rest' }) : undefined,
        );
  } else {
    content =
      shown.evidence.length === 0
        ? el('p', { class: 'missing', text: 'no checks or gates are recorded for this task' })
        : el(
            'div',
            {},
            ...shown.evidence.map((item) =>
              item.kind === 'gate'
                ? el(
                    'div',
                    { class: 'evidence-item' },
                    el('strong', { class: item.ok ? 'ok' : 'bad', text: `gate ${item.name}: ${item.ok ? 'ok' : 'failed'}` }),
                    el('div', { text: item.reason }),
                  )
                : el(
                    'div',
                    { class: 'evidence-item' },
                    el('strong', {
                      class: item.exit_code === 0 ? 'ok' : 'bad',
                      text: `${item.command}: exit ${item.exit_code ?? 'none'}${item.tests_executed === null ? '' : `, ${item.tests_executed} tests`}`,
                    }),
                    el('div', { class: 'mono', text: `on ${item.tree.slice(0, 12)} · log ${item.log}` }),
                    item.log_missing ? el('p', { class: 'missing', text: item.log_missing }) : el('pre', { text: item.log_tail }),
                  ),
            ),
          );
  }
  body.replaceChildren(facts, content);
}
