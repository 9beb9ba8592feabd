import { existsSync } from 'node:fs';
import { branchExists, gitAt, resolveCommit, runGit } from '../../shared/core/git/git.js';
import { integrationBranch } from '../../shared/core/git/orcaBranch.js';
import { RefFiles } from '../../shared/core/git/refFiles.js';
import { linkStartDependencies } from '../../shared/core/git/startFiles.js';
import { addWorktree, removeWorktree } from '../../shared/core/git/worktree.js';
import { IntegrationError } from './integrationError.js';
import { mergeTrees } from './treeMerge.js';

export type MergeOutcome =
  | { kind: 'merged'; commit: string; files: string[] }
  | { kind: 'nothing'; commit: string }
  | { kind: 'conflict'; files: string[]; detail: string };

/**
 * The run's integration branch, `orca/<run>/integration`, with a worktree of its own under
 * ORCA_HOME while the run goes (removed at its end: `close`). Task branches are merged into it
 * one at a time (`--no-ff`, so each task stays one visible merge); a conflicting merge is
 * aborted, leaving the branch exactly as it was.
 *
 * The branch is the coordinator's: it records the head, and only its own merges move it, by
 * compare-and-swap (`git update-ref <new> <recorded>`): a merge is made from the objects alone
 * (treeMerge.ts; with a git older than 2.38, in the worktree on a detached HEAD), and the branch
 * follows only if it still holds the recorded head. It is checked before every merge and whenever
 * the head is asked (the checks, the verdict): a branch moved by anyone else is an
 * IntegrationError naming the ref, and the run ends FAIL with it.
 *
 * The worktree is where the checks build and test the merged tree. Merges do not read it, so
 * nothing left there (by checks, or by agent code with `--sandbox off`) can reach a merge; it is
 * brought to the recorded head when it is next needed (`checkedOut`).
 */
export class IntegrationBranch {
  readonly branch: string;
  private queue: Promise<unknown> = Promise.resolve();
  /** The repository's refs, where the branch's head is read without a process (set by `open`). */
  private refs: RefFiles | undefined;
  /** The head the coordinator recorded: the base, then each of its own merges. */
  private recorded: string | undefined;
  /** Told the new head after each merge (the run's pool of ready worktrees follows it). */
  onMerged?: (head: string) => void;
  /**
   * Whether anyone outside this class was given the worktree's path since it was last put back at
   * the recorded head (`dir`): the integration checks, the Verification's confirmations, a setup.
   */
  private lent = false;
  /** Set once this git turned out to have no `merge-tree --write-tree`: merges are then made in the worktree. */
  private worktreeMerges = false;

  /**
   * `agentsConfined`: false when the run's agents run unsandboxed (`--sandbox off`), where agent
   * code could reach this worktree without being given its path: it is then put back before every merge.
   */
  constructor(
    readonly repo: string,
    readonly runId: string,
    private readonly workdir: string,
    private readonly options: { agentsConfined: boolean } = { agentsConfined: false },
  ) {
    this.branch = integrationBranch(runId);
  }

  /**
   * The worktree's folder, as it is: call `checkedOut` first where it must hold the recorded head.
   * Whoever asks may run code there (the integration checks run agent-written tests in it): the
   * next `checkedOut` puts it back.
   */
  get dir(): string {
    this.lent = true;
    return this.workdir;
  }

  /**
   * The worktree at the recorded head, returned as `dir` is: put back there (`git reset --hard`:
   * what checks left in tracked files goes, untracked build output stays) when a merge moved the
   * head since, when anyone was given the worktree since, or always when agents run unsandboxed.
   * Merges are serialised with this.
   */
  checkedOut(): Promise<string> {
    const run = this.queue.then(async () => {
      await this.putBack(await this.head());
      return this.dir;
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Puts the worktree at `head` unless it is known to be there untouched. */
  private async putBack(head: string): Promise<void> {
    const at = this.refs?.head();
    const there = at?.kind === 'oid' && at.oid === head;
    if (there && !this.lent && this.options.agentsConfined) return;
    await gitAt(this.workdir).raw(['reset', '--quiet', '--hard', head]);
    this.lent = false;
  }

  /**
   * Creates the branch at `base` (or reuses it on resume, where `recorded` is the head the run's
   * events last gave it) and its worktree, detached at that head. Returns the head.
   */
  async open(base: string, recorded?: string): Promise<string> {
    if (!(await branchExists(this.repo, this.branch))) {
      await gitAt(this.repo).raw(['branch', this.branch, await resolveCommit(this.repo, base)]);
    }
    const found = await resolveCommit(this.repo, this.ref);
    if (recorded !== undefined && found !== recorded) throw IntegrationError.moved(this.ref, recorded, found);
    this.recorded = found;
    if (!existsSync(this.workdir)) await addWorktree({ repo: this.repo, dir: this.workdir, base: found });
    else await gitAt(this.workdir).raw(['checkout', '--quiet', '--force', '--detach', found]);
    // The integration checks build and test here: they need the repository's installed dependencies.
    await linkStartDependencies(this.repo, this.workdir);
    this.refs = RefFiles.open(this.workdir);
    return found;
  }

  /** The branch's full ref name. */
  get ref(): string {
    return `refs/heads/${this.branch}`;
  }

  /** The head the coordinator last recorded, unchecked (what a run that ends on an IntegrationError reports). */
  get recordedHead(): string | undefined {
    return this.recorded;
  }

  /**
   * The head the coordinator recorded, once the branch is checked to still hold it (read from the
   * repository's files: it holds after the worktree is gone); an IntegrationError when it moved.
   */
  async head(): Promise<string> {
    const found = this.refs?.resolve(this.ref) ?? (await resolveCommit(this.repo, this.ref).catch(() => undefined));
    if (this.recorded === undefined) {
      if (found === undefined) throw new Error(`${this.ref} does not exist in ${this.repo}`);
      return found;
    }
    if (found !== this.recorded) throw IntegrationError.moved(this.ref, this.recorded, found);
    return this.recorded;
  }

  /**
   * At the run's end: the worktree goes and the branch stays, the run's result, so the user can
   * switch to it, check it out or merge it at once. What the checks left in the worktree (build
   * output) goes with it; merges are commits on the branch.
   */
  async close(): Promise<void> {
    await removeWorktree(this.repo, this.workdir);
  }

  /** Merges a task branch; merges are serialised, whoever calls. */
  merge(branch: string, message: string): Promise<MergeOutcome> {
    const run = this.queue.then(() => this.mergeNow(branch, message));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * A merge from the objects (mergeTrees), where this git can: three git processes, none reading
   * the worktree (the merge; the merge commit made while the files it changed are listed; the
   * branch moved by compare-and-swap), beside the bare `git merge`'s one, which refreshes every
   * tracked file's stat twice (its own, and the `git stash create` it runs). A merge that changes
   * nothing of the head's tree makes no commit: "nothing to merge".
   */
  private async mergeNow(branch: string, message: string): Promise<MergeOutcome> {
    const before = await this.head();
    if (this.worktreeMerges) return this.mergeInWorktree(branch, message, before);
    const failed = (error: unknown): never => {
      const why = error instanceof Error ? error.message : String(error);
      throw new IntegrationError('merge_failed', `merging ${branch} into ${this.branch} failed without a conflict: ${why}`, this.ref);
    };
    // The commit a worker reported is a full id, resolved once per process; a name is asked each time.
    const theirs = await resolveCommit(this.repo, branch).catch(failed);
    const merged = await mergeTrees(this.workdir, before, theirs).catch(failed);
    if (merged.kind === 'unsupported') {
      this.worktreeMerges = true;
      return this.mergeInWorktree(branch, message, before);
    }
    if (merged.kind === 'conflict') return { kind: 'conflict', files: merged.files, detail: merged.detail };
    const git = gitAt(this.workdir);
    // The files the merge changed against the head before (a rename names both paths).
    const [changed, made] = await Promise.all([
      git.raw(['diff-tree', '-r', '-z', '--name-only', '--no-renames', before, merged.tree]),
      git.raw(['commit-tree', merged.tree, '-p', before, '-p', theirs, '-m', message]),
    ]);
    const files = changed.split('\0').filter(Boolean);
    if (files.length === 0) return { kind: 'nothing', commit: before };
    const commit = made.trim();
    await this.swap(commit, before);
    this.onMerged?.(commit);
    return { kind: 'merged', commit, files };
  }

  /**
   * The merge as a git older than 2.38 makes it, in the worktree (put back at the head first, on
   * a detached HEAD): "nothing to merge" is a merge that made no commit (git says "Already up to
   * date" and exits 0); the branch moves by compare-and-swap while the files are listed.
   */
  private async mergeInWorktree(branch: string, message: string, before: string): Promise<MergeOutcome> {
    const git = gitAt(this.workdir);
    await this.putBack(before);
    const merged = await runGit(this.workdir, ['merge', '--no-ff', '--no-edit', '--no-stat', '-m', message, branch]);
    if (merged.code !== 0) return this.failedMerge(branch, before, `${merged.stdout}\n${merged.stderr}`.trim());
    const commit = await this.worktreeHead(branch);
    if (commit === before) return { kind: 'nothing', commit: before };
    const changed = git.raw(['diff-tree', '-r', '-z', '--name-only', '--no-renames', '--no-commit-id', before, commit]);
    changed.catch(() => undefined);
    await this.swap(commit, before);
    const files = (await changed).split('\0').filter(Boolean);
    this.onMerged?.(commit);
    return { kind: 'merged', commit, files };
  }

  /** The worktree's detached HEAD after a merge: its HEAD file, or git's answer where refs are not files. */
  private async worktreeHead(branch: string): Promise<string> {
    const head = this.refs?.head();
    if (head?.kind === 'oid') return head.oid;
    const found = await resolveCommit(this.workdir, 'HEAD').catch(() => undefined);
    if (!found) throw new IntegrationError('merge_failed', `after merging ${branch}, ${this.workdir} has no HEAD commit`, this.ref);
    return found;
  }

  /** A merge git refused: aborted, the worktree back at the head before; a conflict, or an IntegrationError saying why. */
  private async failedMerge(branch: string, before: string, detail: string): Promise<MergeOutcome> {
    const unmerged = (await gitAt(this.workdir).raw(['diff', '--name-only', '--diff-filter=U'])).split('\n').filter(Boolean);
    const aborted = await runGit(this.workdir, ['merge', '--abort']);
    if (aborted.code !== 0) await gitAt(this.workdir).raw(['reset', '--quiet', '--hard', before]);
    if (unmerged.length === 0)
      throw new IntegrationError('merge_failed', `merging ${branch} into ${this.branch} failed without a conflict: ${detail}`, this.ref);
    return { kind: 'conflict', files: unmerged, detail };
  }

  /**
   * Moves the branch from the recorded head to `commit`, only if it still holds it; else the run
   * is told (the worktree, wherever a merge left it, is put back before its next use: putBack).
   */
  private async swap(commit: string, before: string, why = `orca: merge into ${this.branch}`): Promise<void> {
    const swapped = await runGit(this.repo, ['update-ref', '-m', why, this.ref, commit, before]);
    if (swapped.code !== 0) {
      const found = await resolveCommit(this.repo, this.ref).catch(() => undefined);
      throw IntegrationError.moved(this.ref, before, found);
    }
    this.recorded = commit;
  }

  /**
   * Moves the branch back to `to` (a head it held before: the last verified point, or the base),
   * by compare-and-swap from the recorded head (the worktree follows when next used). Work taken
   * off stays on its task branch; merges are serialised with this.
   */
  rewind(to: string): Promise<void> {
    const run = this.queue.then(async () => {
      const before = await this.head();
      if (before === to) return;
      await this.swap(to, before, `orca: ${this.branch} moved back to verified work`);
      this.onMerged?.(to);
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Replays a merge made earlier (now off the branch, after a rewind) on the head as it is: its
   * change against its first parent, as one commit (`git cherry-pick -m 1`), so nothing of what
   * was taken off comes back through the task branch's history. A conflict is aborted and said.
   */
  replay(mergeCommit: string): Promise<MergeOutcome> {
    const run = this.queue.then(() => this.replayNow(mergeCommit));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async replayNow(mergeCommit: string): Promise<MergeOutcome> {
    const before = await this.head();
    await this.putBack(before);
    const picked = await runGit(this.workdir, ['cherry-pick', '-m', '1', '--allow-empty', '--keep-redundant-commits', '-x', mergeCommit]);
    if (picked.code !== 0) {
      const unmerged = (await gitAt(this.workdir).raw(['diff', '--name-only', '--diff-filter=U'])).split('\n').filter(Boolean);
      const aborted = await runGit(this.workdir, ['cherry-pick', '--abort']);
      if (aborted.code !== 0) await gitAt(this.workdir).raw(['reset', '--quiet', '--hard', before]);
      return { kind: 'conflict', files: unmerged, detail: `${picked.stdout}\n${picked.stderr}`.trim() };
    }
    const [commit, ...files] = (await gitAt(this.workdir).raw(['show', '--name-only', '--format=%H', 'HEAD'])).split('\n').filter(Boolean);
    if (!commit || commit === before) return { kind: 'nothing', commit: before };
    await this.swap(commit, before);
    this.onMerged?.(commit);
    return { kind: 'merged', commit, files };
  }

  /** Whether the merged tree (the recorded head's, not the worktree's HEAD, which checks could move) is the base's own: nothing the run did is in it (no merge, or merges that changed nothing). */
  async sameTreeAs(base: string): Promise<boolean> {
    const trees = await gitAt(this.workdir).raw(['rev-parse', `${base}^{tree}`, `${await this.head()}^{tree}`]);
    const [baseTree, headTree] = trees.trim().split('\n');
    return baseTree === headTree;
  }

  /** The diff of the merged work against the run's base: what verification is shown. */
  async diffFrom(base: string): Promise<string> {
    return gitAt(this.workdir).raw(['diff', `${base}..${await this.head()}`]);
  }
}
