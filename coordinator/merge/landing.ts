import { DONE_WELL } from '../../shared/core/events/taskStatusGroups.js';
import { gitAt } from '../../shared/core/git/git.js';
import type { TaskRecord } from '../../shared/infra/board/runChange.js';
import type { RunContext } from '../run/runContext.js';
import type { MergeOutcome } from './integration.js';

/** The integration checks on the merged tree as it is now (integrationChecks.ts); `label` names their logs. */
export type TreeCheck = (label: string) => Promise<{ ok: boolean; detail: string }>;

type Merged = Extract<MergeOutcome, { kind: 'merged' }>;

/** One task's work on the integration branch: the merge that put it there, and what it changed. */
interface Landed {
  taskId: string;
  /** The merge commit on the integration branch (or the replayed commit after a rebuild). */
  merge: string;
  files: string[];
  /** Where its work stays when it is taken off: the task's own branch and commit. */
  branch?: string;
  commit?: string;
}

/** What the landing is told of a merge besides its outcome. */
export interface LandingMerge {
  taskId: string;
  branch?: string;
  commit?: string;
  /** False for a subtask whose plan says `checks: []`: a failure of the checks right after its merge is held, not rolled back. */
  checkedAlone: boolean;
  /** It merged only after a worker redid it on the integration head (a conflict). */
  resolved: boolean;
}

/**
 * The integration branch only ever holds verified work. After each merge the integration checks
 * run on the merged tree before the merge counts (merges the queue made in one step are checked
 * together, once: landTogether): passing, the task is `verified` (and so is any
 * merge held before it); failing, the branch is moved back by compare-and-swap to the last
 * verified point and the task fails, its work kept on its own branch and the merge taken off named
 * (`rolled_back`). A subtask that cannot be checked alone (`checks: []`) is held instead, and
 * counts once a later merge passes the checks; held merges still failing when dispatch ends are
 * taken off. A final verification that fails takes everything back to the base (`takeBack`); a
 * change to the tests the Verification agent does not confirm takes off the work it concerns
 * (`takeOff`). Without integration checks nothing verifies a merge: it stays `merged`.
 */
export class Landing {
  private verified: string;
  private readonly kept: Landed[] = [];
  private held: Landed[] = [];

  constructor(
    private readonly ctx: Pick<RunContext, 'recorder' | 'integration' | 'say' | 'base'>,
    opened: string,
    private readonly check: TreeCheck | undefined,
  ) {
    this.verified = opened;
  }

  /**
   * A resumed run's merges from before it stopped, oldest first: work already on the branch, which
   * a final verification may still take off. A merge the run's events show verified counts as such;
   * one only `merged` is held (or, without integration checks, unverified as every merge is).
   */
  async adopt(tasks: readonly TaskRecord[]): Promise<void> {
    const merged = tasks.filter((task) => DONE_WELL.includes(task.status) && task.merge_commit);
    for (const task of [...merged].sort((a, b) => (a.merged_at ?? 0) - (b.merged_at ?? 0))) {
      const files = (await gitAt(this.ctx.integration.dir).raw(['show', '--first-parent', '--name-only', '--format=', task.merge_commit!]))
        .split('\n')
        .filter(Boolean);
      const landed = { taskId: task.task_id, merge: task.merge_commit!, files, branch: task.branch, commit: task.commit };
      // `merged` with checks to run: held, not yet verified by a later merge.
      if (task.status === 'verified' || !this.check) this.kept.push(landed);
      else this.held.push(landed);
      if (task.status === 'verified') this.verified = task.merge_commit!;
    }
  }

  /** The work on the integration branch, oldest first: which task's merge changed which files. */
  get landed(): ReadonlyArray<Readonly<Landed>> {
    return [...this.kept, ...this.held];
  }

  /** A merge that just moved the integration branch: checked, then counted, held or rolled back. */
  async land(merge: LandingMerge, outcome: Merged): Promise<void> {
    const landed = landedOf(merge, outcome);
    const at = mergedAt(merge, outcome);
    if (!this.check) {
      await this.recordMerged(landed, merge.resolved, `${at}; no integration checks are set, so nothing verifies it`);
      this.kept.push(landed);
      this.ctx.say(`${merge.taskId} merged${merge.resolved ? ' (after resolving a conflict)' : ''}`);
      return;
    }
    const verdict = await this.check(`merge-${merge.taskId}`);
    if (verdict.ok) {
      await this.recordMerged(landed, merge.resolved, `${at} and verified: ${verdict.detail}`, 'verified');
      await this.verifyHeld(`${merge.taskId}'s merge`, verdict.detail);
      this.kept.push(landed);
      this.verified = outcome.commit;
      this.ctx.say(`${merge.taskId} merged${merge.resolved ? ' (after resolving a conflict)' : ''} and verified`);
      return;
    }
    if (!merge.checkedAlone) {
      await this.recordMerged(
        landed,
        merge.resolved,
        `${at}; its plan says it cannot be checked alone, and ${verdict.detail}: it counts once a later merge passes them`,
      );
      this.held.push(landed);
      this.ctx.say(`${merge.taskId} merged, held until the integration checks pass (it cannot be checked alone)`);
      return;
    }
    await this.rollBack(landed, verdict.detail);
  }

  /**
   * Merges made one after another in one step of the merge queue, checked once, on the tree they
   * make together. Passing, each counts as `verified` (and so does any merge held before them), as
   * if each had passed alone: the checks judged a tree holding every one of them. Failing, the
   * branch goes back to where it was before them (the last verified point, or the last merge
   * held after it) and false is returned: the queue merges them again
   * in halves (mergeQueue.ts), down to one, so the merge that fails is the one named and taken off,
   * and no other.
   * A single merge, or none checked at all, lands as `land` has it.
   */
  async landTogether(merges: ReadonlyArray<{ merge: LandingMerge; outcome: Merged }>): Promise<boolean> {
    if (merges.length === 1 || !this.check) {
      for (const { merge, outcome } of merges) await this.land(merge, outcome);
      return true;
    }
    const ids = merges.map(({ merge }) => merge.taskId);
    const verdict = await this.check(`merge-${ids[0]}+${ids.length - 1}`);
    if (!verdict.ok) {
      // Back to the head before these merges: held merges stay on the branch, still held.
      await this.ctx.integration.rewind(this.held.at(-1)?.merge ?? this.verified);
      this.ctx.say(
        `${ids.join(', ')} failed the integration checks merged together (${verdict.detail}): merged again in two halves, each checked on its own`,
      );
      return false;
    }
    // Held merges are older than these: they count first, and keep their place on the branch.
    await this.verifyHeld(`the merges of ${ids.join(', ')}`, verdict.detail);
    for (const { merge, outcome } of merges) {
      const others = ids.filter((id) => id !== merge.taskId).join(', ');
      const detail = `${mergedAt(merge, outcome)} and verified: ${verdict.detail} (checked together with the merges of ${others})`;
      const landed = landedOf(merge, outcome);
      await this.recordMerged(landed, merge.resolved, detail, 'verified');
      this.kept.push(landed);
      this.ctx.say(`${merge.taskId} merged${merge.resolved ? ' (after resolving a conflict)' : ''} and verified`);
    }
    this.verified = merges.at(-1)!.outcome.commit;
    return true;
  }

  /** At the end of dispatch: merges held that no later merge verified are taken off. */
  async releaseHeld(): Promise<void> {
    if (this.held.length === 0) return;
    const held = this.held;
    this.held = [];
    await this.ctx.integration.rewind(this.verified);
    for (const one of held) await this.recordTakenOff(one, 'its merge never passed the integration checks, alone or with a later merge');
  }

  /** A final verification failed: every merge is taken off, the branch back at the base. */
  async takeBack(reason: string): Promise<void> {
    const all = [...this.kept.splice(0), ...this.held.splice(0)];
    await this.ctx.integration.rewind(this.ctx.base);
    this.verified = this.ctx.base;
    for (const one of all) await this.recordTakenOff(one, reason);
  }

  /**
   * Takes off the work of `taskIds` (and says why for each), keeping the rest: the branch goes back
   * to the base and the rest is replayed on it in its order (integration.replay), then checked once
   * on the tree it makes. Work that cannot be replayed without what was taken off goes too; a tree
   * that then fails the checks takes everything back.
   */
  async takeOff(taskIds: ReadonlySet<string>, why: (taskId: string) => string): Promise<void> {
    const all = [...this.kept.splice(0), ...this.held.splice(0)];
    await this.ctx.integration.rewind(this.ctx.base);
    this.verified = this.ctx.base;
    for (const one of all.filter((entry) => taskIds.has(entry.taskId))) await this.recordTakenOff(one, why(one.taskId));
    for (const one of all.filter((entry) => !taskIds.has(entry.taskId))) await this.replay(one);
    if (this.kept.length === 0 || !this.check) return;
    const verdict = await this.check('replayed');
    if (!verdict.ok) return this.takeBack(`after work was taken off, ${verdict.detail}`);
    this.verified = this.kept.at(-1)!.merge;
    for (const one of this.kept)
      await this.recordStatus(one.taskId, 'verified', `replayed without the work taken off and verified: ${verdict.detail}`);
  }

  private async replay(one: Landed): Promise<void> {
    const outcome = await this.ctx.integration.replay(one.merge);
    if (outcome.kind === 'conflict') {
      return this.recordTakenOff(
        one,
        `its work could not be replayed without the work taken off (conflict in ${outcome.files.join(', ')})`,
      );
    }
    const replayed = { ...one, merge: outcome.commit };
    await this.ctx.recorder.record({ type: 'merge', task_id: one.taskId, outcome: 'merged', commit: outcome.commit, files: one.files });
    this.kept.push(replayed);
  }

  private async rollBack(landed: Landed, detail: string): Promise<void> {
    const held = this.held;
    this.held = [];
    await this.ctx.integration.rewind(this.verified);
    await this.recordTakenOff(landed, detail);
    for (const one of held)
      await this.recordTakenOff(one, `held until a later merge passed the integration checks, and ${landed.taskId}'s did not: ${detail}`);
  }

  private async verifyHeld(by: string, detail: string): Promise<void> {
    for (const one of this.held) {
      await this.recordStatus(one.taskId, 'verified', `merged as ${one.merge.slice(0, 12)}, verified with ${by}: ${detail}`);
      this.kept.push(one);
    }
    this.held = [];
  }

  private async recordMerged(landed: Landed, resolved: boolean, detail: string, status: 'merged' | 'verified' = 'merged'): Promise<void> {
    await this.ctx.recorder.record({
      type: 'merge',
      task_id: landed.taskId,
      outcome: resolved ? 'resolved' : 'merged',
      commit: landed.merge,
      files: landed.files,
    });
    // `merged` first: its work is on the branch; `verified` then says its checks passed there.
    if (status === 'verified') await this.recordStatus(landed.taskId, 'merged', detail);
    await this.recordStatus(landed.taskId, status, detail);
  }

  private async recordTakenOff(one: Landed, reason: string): Promise<void> {
    const kept = one.branch ? `; its work stays on ${one.branch}${one.commit ? ` at ${one.commit.slice(0, 12)}` : ''}` : '';
    const detail = `its merge ${one.merge.slice(0, 12)} was taken off the integration branch: ${reason}${kept}`;
    await this.ctx.recorder.record({
      type: 'merge',
      task_id: one.taskId,
      outcome: 'rolled_back',
      commit: one.merge,
      files: one.files,
      detail,
    });
    await this.recordStatus(one.taskId, 'failed', detail);
    this.ctx.say(`${one.taskId} taken off the integration branch: ${reason}`);
  }

  private async recordStatus(taskId: string, status: 'merged' | 'verified' | 'failed', detail: string): Promise<void> {
    const attempt = this.ctx.recorder.state.tasks.get(taskId)?.attempt ?? 1;
    await this.ctx.recorder.record({ type: 'task_state', task_id: taskId, status, attempt, detail });
  }
}

/** What the landing keeps of a merge. */
function landedOf(merge: LandingMerge, outcome: Merged): Landed {
  return { taskId: merge.taskId, merge: outcome.commit, files: outcome.files, branch: merge.branch, commit: merge.commit };
}

/** `merged into the integration branch as <commit>`, and whether it was redone first: how a task's detail begins. */
function mergedAt(merge: LandingMerge, outcome: Merged): string {
  return `merged into the integration branch as ${outcome.commit.slice(0, 12)}${merge.resolved ? ', redone on the integration head after a merge conflict' : ''}`;
}
