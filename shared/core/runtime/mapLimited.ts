/**
 * `fn` over every item, at most `limit` at a time, the results in the items' order. Like
 * `settled`, it throws only once every call has settled (none is left running behind a failure),
 * the first failure in the items' order. For work that starts a process each (a `git status` per
 * worktree): all at once would fork that many at the same moment, one at a time waits on each.
 */
export async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const outcomes: PromiseSettledResult<R>[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const at = next++;
      try {
        outcomes[at] = { status: 'fulfilled', value: await fn(items[at]!) };
      } catch (reason) {
        outcomes[at] = { status: 'rejected', reason };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
  const failed = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (failed) throw failed.reason;
  return outcomes.map((outcome) => (outcome as PromiseFulfilledResult<R>).value);
}
