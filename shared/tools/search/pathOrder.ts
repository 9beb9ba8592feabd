/**
 * Path order folder by folder, the order a sorted directory walk gives: `/` sorts before any other
 * character, so everything in `a/` comes before `a.ts`. Grep and Glob break ties with it.
 */
export function comparePaths(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    if (x === 47) return -1;
    if (y === 47) return 1;
    return x - y;
  }
  return a.length - b.length;
}

/**
 * `items` sorted by `comparePaths` of their paths, faster for large lists: each path becomes a
 * key once (with `/` as the lowest character) and the keys compare natively.
 */
export function sortByPath<T>(items: readonly T[], pathOf: (item: T) => string): T[] {
  const keyed = items.map((item) => ({ item, key: pathOf(item).replaceAll('/', '\0') }));
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return keyed.map((entry) => entry.item);
}
