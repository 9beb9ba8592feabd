import { existsSync } from 'node:fs';
import { branchExists, gitAt, resolveCommit, runGit } from '../../shared/core/git/git.js';
import { linkDependencies } from '../../shared/core/git/linkDependencies.js';
import { integrationBranch } from '../../shared/core/git/orcaBranch.js';
import { RefFiles } from '../../shared/core/git/refFiles.js';
import { addWorktreeForBranch, removeWorktree } from '../../shared/core/git/worktree.js';

export type MergeOutcome =
  | { kind: 'merged'; commit: string; files: string[] }
  | { kind: 'nothing'; commit: string }
  | { kind: 'conflict'; files: string[]; detail: string };

/**
 * The run's integration branch, `orca/<run>/integration`, with a worktree of its own under
 * ORCA_HOME while the run goes (removed at its end: `close`). Task branches are merged into it
 * one at a time (`--no-ff`, so each task stays one visible merge); a conflicting merge is
 * aborted, leaving the branch exactly as it was.
 */
export class IntegrationBranch {
  readonly branch: string;
  private queue: Promise<unknown> = Promise.resolve();
  /** The repository's refs, where the branch's head is read without a process (set by `open`). */
  private refs: RefFiles | undefined;
  /** Told the new head after each merge (the run's pool of ready worktrees follows it). */
  onMerged?: (head: string) => void;

  constructor(
    readonly repo: string,
    readonly runId: string,
    readonly dir: string,
  ) {
    this.branch = integrationBranch(runId);
  }

  /** Creates the branch at `base` (or reuses it on resume) and its worktree. Returns its head. */
  async open(base: string): Promise<string> {
    if (!(await branchExists(this.repo, this.branch))) {
      await gitAt(this.repo).raw(['branch', this.branch, await resolveCommit(this.repo, base)]);
    }
    if (!existsSync(this.dir)) await addWorktreeForBranch(this.repo, this.dir, this.branch);
    // The integration checks build and test here: they need the repository's installed dependencies.
    linkDependencies(this.repo, this.dir);
    this.refs = RefFiles.open(this.dir);
    return this.head();
  }

  /** The branch's tip, read from the repository: it holds after the worktree is gone. */
  async head(): Promise<string> {
    const ref = `refs/heads/${this.branch}`;
    return this.refs?.resolve(ref) ?? resolveCommit(this.repo, ref);
  }

  /**
   * At the run's end: the worktree goes and the branch stays, the run's result, so the user can
   * switch to it, check it out or merge it at once. What the checks left in the worktree (build
   * output) goes with it; merges are commits on the branch.
   */
  async close(): Promise<void> {
    await removeWorktree(this.repo, this.dir);
  }

  /** Merges a task branch; merges are serialised, whoever calls. */
  merge(branch: string, message: string): Promise<MergeOutcome> {
    const run = this.queue.then(() => this.mergeNow(branch, message));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Two git processes a merge, beside the bare `git merge`'s one: the head before is a file read,
   * "nothing to merge" is a merge that made no commit (git says "Already up to date" and exits 0),
   * and the new head and the files it changed are one `git show` of the merge against its first
   * parent (the head before).
   */
  private async mergeNow(branch: string, message: string): Promise<MergeOutcome> {
    const git = gitAt(this.dir);
    const before = await this.head();
    const merged = await runGit(this.dir, ['merge', '--no-ff', '--no-edit', '--no-stat', '-m', message, branch]);
    if (merged.code !== 0) {
      const unmerged = (await git.raw(['diff', '--name-only', '--diff-filter=U'])).split('\n').filter(Boolean);
      const detail = `${merged.stdout}\n${merged.stderr}`.trim();
      // Leave the integration branch exactly as it was before this merge.
      const aborted = await runGit(this.dir, ['merge', '--abort']);
      if (aborted.code !== 0) await git.raw(['reset', '--hard', before]);
      if (unmerged.length === 0) throw new Error(`merging ${branch} failed without a conflict: ${detail}`);
      return { kind: 'conflict', files: unmerged, detail };
    }
    const [commit, ...files] = (await git.raw(['show', '--first-parent', '--name-only', '--format=%H', 'HEAD']))
      .split('\n')
      .filter(Boolean);
    if (!commit) throw new Error(`after merging ${branch}, git show HEAD printed no commit in ${this.dir}`);
    if (commit === before) return { kind: 'nothing', commit: before };
    this.onMerged?.(commit);
    return { kind: 'merged', commit, files };
  }

  /** Whether the merged tree is the base's own: nothing the run did is in it (no merge, or merges that changed nothing). */
  async sameTreeAs(base: string): Promise<boolean> {
    const trees = await gitAt(this.dir).raw(['rev-parse', `${base}^{tree}`, 'HEAD^{tree}']);
    const [baseTree, headTree] = trees.trim().split('\n');
    return baseTree === headTree;
  }

  /** The diff of the merged work against the run's base: what verification is shown. */
  async diffFrom(base: string): Promise<string> {
    return gitAt(this.dir).raw(['diff', `${base}..HEAD`]);
  }
}
