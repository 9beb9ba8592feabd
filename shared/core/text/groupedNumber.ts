/**
 * `1234567` as `1,234,567`, what `toLocaleString('en-US')` gives for a count, without ICU: the
 * first `toLocaleString` or `Intl.NumberFormat` of a process pages in ICU's locale data and builds
 * a formatter, about 7.7 MB of a worker's resident memory (a bare Node: 40.5 → 48.2 MB), for text
 * the model reads in every turn's reminder (issue 35, worker_rss_mb). A fraction is kept as
 * `String` writes it (`1234.5` → `1,234.5`).
 */
export function groupedNumber(value: number): string {
  if (!Number.isFinite(value) || Math.abs(value) >= 1e21) return String(value);
  const [whole, fraction] = String(Math.abs(value)).split('.');
  const grouped = whole!.replace(/\B(?=(\d{3})+$)/g, ',');
  return `${value < 0 ? '-' : ''}${grouped}${fraction === undefined ? '' : `.${fraction}`}`;
}
