// The permission requests a run's agents wait on, as cards under their tasks: what the agent wants
// to run and why it asks, with Allow, Allow for the run and Deny. An answer is POSTed like the
// abort button's (same origin, the board's token rules); the card goes when the run's events say
// the request was answered, by this page or anyone else.

import { api, duration, el, elapsed } from './elements.js';

/** Reasons typed into a card, and answers on their way, kept across redraws of the board. */
const typed = new Map();
const sending = new Map();

/** The cards of one task's pending requests. */
export function askCards(runId, asks) {
  return asks.map((ask) => askCard(runId, ask));
}

function askCard(runId, ask) {
  const state = sending.get(ask.id);
  const why = el('input', {
    class: 'ask-why',
    type: 'text',
    placeholder: 'reason, for the agent (optional)',
    'aria-label': `reason for request ${ask.id}`,
    'data-ask-reason': ask.id,
    value: typed.get(ask.id) ?? '',
    disabled: state !== undefined,
    oninput: (event) => typed.set(ask.id, event.target.value),
  });
  const button = (answer, text, title) =>
    el('button', {
      type: 'button',
      class: `ask-button ask-${answer}`,
      'data-answer': answer,
      title,
      text,
      disabled: state !== undefined,
      onclick: () => send(runId, ask, answer),
    });
  const rules = ask.suggestion.join(', ');
  return el(
    'div',
    { class: 'ask-card', 'data-ask': ask.id, 'data-ask-task': ask.task_id, role: 'group', 'aria-label': `permission request ${ask.id}` },
    el(
      'div',
      { class: 'ask-head' },
      el('strong', { text: `${ask.task_id} asks to run ${ask.tool}` }),
      el('span', { class: 'mono', text: ask.id }),
    ),
    el('code', { class: 'ask-summary', text: ask.summary }),
    el('div', { class: 'ask-reason', text: ask.reason }),
    el(
      'div',
      { class: 'ask-meta' },
      'waiting ',
      elapsed(ask.at),
      ' · denied on its own in ',
      el('span', { class: 'countdown', 'data-until': ask.expires_at, text: duration(ask.expires_at - Date.now()) }),
    ),
    why,
    el(
      'div',
      { class: 'ask-actions' },
      button('allow', 'Allow', 'run it this once'),
      rules ? button('allow-run', 'Allow for the run', `allow it, and ${rules} for the rest of the run`) : undefined,
      button('deny', 'Deny', 'refuse it: the agent is told, with the reason'),
    ),
    el('div', { class: 'ask-status', role: 'status', text: state ?? '' }),
  );
}

async function send(runId, ask, answer) {
  const allowed = answer !== 'deny';
  sending.set(ask.id, allowed ? 'allowing…' : 'denying…');
  const card = document.querySelector(`[data-ask="${CSS.escape(ask.id)}"]`);
  for (const control of card?.querySelectorAll('button, input') ?? []) control.disabled = true;
  const status = card?.querySelector('.ask-status');
  if (status) status.textContent = sending.get(ask.id);
  const reason = (typed.get(ask.id) ?? '').trim();
  try {
    await api(`/api/runs/${encodeURIComponent(runId)}/asks/${encodeURIComponent(ask.id)}/answer`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ allowed, for_run: answer === 'allow-run', ...(reason ? { reason } : {}) }),
    });
    sending.set(ask.id, allowed ? 'allowed: waiting for the agent' : 'denied: waiting for the agent');
  } catch (error) {
    sending.delete(ask.id);
    alert(`The answer was not recorded: ${error.message}`);
  }
  if (status) status.textContent = sending.get(ask.id) ?? '';
}

/** Forgets what was typed for requests no longer pending. */
export function forgetAnswered(asks) {
  const pending = new Set(asks.map((ask) => ask.id));
  for (const id of [...typed.keys(), ...sending.keys()]) {
    if (pending.has(id)) continue;
    typed.delete(id);
    sending.delete(id);
  }
}
