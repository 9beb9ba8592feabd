import { gitAt, resolveCommit, runGit } from '../../shared/core/git/git.js';
import { INTEGRATION_TASK, sharedRef } from '../../shared/core/git/orcaBranch.js';

/**
 * A run shared over git (`orca run --share URL`): the coordinator's side. Every job's base is the
 * integration head at some moment (the run's base first), so before a job is queued its base is
 * pushed as `refs/orca/<run>/integration`, a ref that only moves forward (an older base stays
 * reachable from it); workers fetch it from there. A finished task's branch, pushed by its
 * worker as `refs/orca/<run>/<task>`, is fetched back into the user's repository as the task
 * branch before it is merged, so the integration branch, as in a local run, ends there.
 */
export class SharedRun {
  private published: string | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly url: string,
    readonly repo: string,
    readonly runId: string,
  ) {}

  /** Makes `commit` fetchable from the shared remote. Serialised, and never moves the ref back. */
  publish(commit: string): Promise<void> {
    const run = this.queue.then(() => this.publishNow(commit));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async publishNow(commit: string): Promise<void> {
    if (this.published === commit) return;
    if (this.published && (await this.isAncestor(commit, this.published))) return;
    const ref = sharedRef(this.runId, INTEGRATION_TASK);
    try {
      await gitAt(this.repo).raw(['push', '--quiet', '--force', this.url, `${commit}:${ref}`]);
    } catch (error) {
      throw new Error(`could not push ${commit.slice(0, 12)} to the shared remote ${this.url} as ${ref}: ${messageOf(error)}`, {
        cause: error,
      });
    }
    this.published = commit;
  }

  /** Fetches a task's pushed branch into the user's repository as `branch`, checking it is the commit the worker reported. */
  async fetchTask(taskId: string, branch: string, commit: string): Promise<void> {
    const ref = sharedRef(this.runId, taskId);
    try {
      await gitAt(this.repo).raw(['fetch', '--quiet', '--no-tags', this.url, `+${ref}:refs/heads/${branch}`]);
    } catch (error) {
      throw new Error(`could not fetch ${ref} from the shared remote ${this.url}: ${messageOf(error)}`, { cause: error });
    }
    const fetched = await resolveCommit(this.repo, `refs/heads/${branch}`);
    if (fetched !== commit)
      throw new Error(
        `${ref} on the shared remote ${this.url} is at ${fetched.slice(0, 12)}, not at the commit ${commit.slice(0, 12)} its worker reported`,
      );
  }

  private async isAncestor(commit: string, of: string): Promise<boolean> {
    // Exit 1 (not an ancestor) prints nothing: the code is the answer.
    const { code, stderr } = await runGit(this.repo, ['merge-base', '--is-ancestor', commit, of]);
    if (code > 1) throw new Error(`git merge-base --is-ancestor failed in ${this.repo}: ${stderr.trim()}`);
    return code === 0;
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message.trim() : String(error);
}
