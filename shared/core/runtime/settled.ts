/**
 * Like Promise.all, but throws only once every promise has settled: when one branch of a job's
 * start fails, the others have finished taking what they take (a lease, a worktree, MCP servers)
 * and handed it to where the job's `finally` gives it back, rather than taking it after the job
 * gave up. The first failure (in the order given) is thrown.
 */
export async function settled<T extends readonly unknown[]>(
  promises: readonly [...T],
): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const outcomes = await Promise.allSettled(promises);
  const failed = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (failed) throw failed.reason;
  return outcomes.map((outcome) => (outcome as PromiseFulfilledResult<unknown>).value) as { -readonly [K in keyof T]: Awaited<T[K]> };
}
