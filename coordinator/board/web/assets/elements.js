// How the page builds its elements and writes its numbers: text from runs is only ever set as
// text (textContent), never parsed as HTML.

export function el(tag, attributes = {}, ...children) {
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

export function duration(ms) {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}

export function tokens(n) {
  if (n < 1000) return String(n);
  if (n < 1e6) return `${(n / 1000).toFixed(n < 10000 ? 1 : 0)}k`;
  return `${(n / 1e6).toFixed(1)}M`;
}

export function money(usd) {
  return `$${usd.toFixed(usd < 1 ? 4 : 2)}`;
}

export function inputTokens(usage) {
  return usage.input_tokens + usage.cache_read_tokens + usage.cache_creation_tokens;
}

/** A span whose text is kept current by the clock: time since `from`, until `to` when it is set. */
export function elapsed(from, to) {
  if (from === undefined || from === null) return el('span', { text: '–' });
  return el('span', { class: 'elapsed', 'data-from': from, 'data-to': to ?? '', text: duration((to ?? Date.now()) - from) });
}

export async function api(path, init) {
  const response = await fetch(path, { headers: { accept: 'application/json' }, ...init });
  const body = await response.json().catch(() => ({ error: `${response.status} ${response.statusText}` }));
  if (!response.ok) throw new Error(body.error ?? `${response.status} ${response.statusText}`);
  return body;
}
