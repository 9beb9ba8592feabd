/**
 * Why the integration branch could not take a merge, as the run's result says it: the run ends
 * FAIL with this reason (never a crash with no result). `ref_moved`: something other than the
 * coordinator moved the branch (agent code with `git update-ref`, a write to the ref file): the
 * branch is the coordinator's, moved only by compare-and-swap from the head it recorded.
 * `merge_failed`: git could not merge for a reason that is no conflict (the integration worktree
 * holds changes orca did not make, a lock held).
 */
export class IntegrationError extends Error {
  constructor(
    readonly kind: 'ref_moved' | 'merge_failed',
    message: string,
    readonly ref: string,
  ) {
    super(message);
    this.name = 'IntegrationError';
  }

  static moved(ref: string, recorded: string, found: string | undefined): IntegrationError {
    const now = found === undefined ? 'is gone' : `is at ${found.slice(0, 12)}`;
    return new IntegrationError(
      'ref_moved',
      `${ref} moved under the run: the coordinator recorded ${recorded.slice(0, 12)} and it ${now}; nothing more is merged, and the result is not this ref (look at what moved it: \`git reflog ${ref.replace(/^refs\/heads\//, '')}\`)`,
      ref,
    );
  }
}
