/**
 * A sort's comparison of two strings by their UTF-16 code units, the order `[].sort()` gives,
 * where paths are concerned the order git lists them in for ASCII names. Not `localeCompare`: its
 * first call in a process pages in ICU's collation data (about 3 MB of a worker's resident memory,
 * issue 35's worker_rss_mb), and its order (case and punctuation folded) is not the one a
 * reader of git's output expects.
 */
export function codeUnitOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
