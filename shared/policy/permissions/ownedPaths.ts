import picomatch from 'picomatch';
import { guardedReason } from './guardedPaths.js';

/**
 * The files a task may change: its plan subtask's `paths` globs (relative to the repository root,
 * matched with picomatch, dot files included). No globs (an `orca agent` session, a role without a
 * subtask) owns every path. Guarded paths (guardedPaths.ts) stay refused either way, unless a glob
 * names them literally (its dot segment written out, never matched by `*` or `**`) and the change
 * was made through a file tool an allow rule admitted; `.git` is never admitted.
 */
export class OwnedPaths {
  private readonly match: (path: string) => boolean;
  private readonly literal: (path: string) => boolean;

  constructor(readonly globs: readonly string[] | undefined) {
    const list = (globs ?? []).map((glob) => glob.replace(/^\.\//, '').replace(/^\//, ''));
    this.match = globs === undefined ? () => true : picomatch(list.length > 0 ? list : ['\0none'], { dot: true });
    // Without `dot`, a wildcard never matches a dot segment: only a glob that spells it out does.
    this.literal = picomatch(list.length > 0 ? list : ['\0none'], { dot: false });
  }

  /** Whether the task owns `relative` (forward slashes, from the repository root). */
  owns(relative: string): boolean {
    return this.match(relative);
  }

  /** The globs, for a refusal: `src/a/**, tests/a.test.ts`, or "every path" when there are none. */
  describe(): string {
    return this.globs === undefined ? 'every path (but guarded ones)' : this.globs.length > 0 ? this.globs.join(', ') : '(none)';
  }

  /**
   * Why a change to `relative` may not stay, or undefined when it may. `viaAllowedTool`: the file
   * as it is now was written by an Edit or Write the permission policy allowed (a guarded path
   * needs an allow rule naming it there), so a literally owned guarded path is admitted.
   */
  refusal(relative: string, viaAllowedTool = false): ChangeRefusal | undefined {
    const guarded = guardedReason(relative);
    if (guarded) {
      const git = relative.toLowerCase().split('/').includes('.git');
      if (git || !viaAllowedTool || !this.literal(relative)) return { path: relative, kind: 'guarded', reason: guarded };
      return undefined;
    }
    if (!this.owns(relative)) return { path: relative, kind: 'not_owned', reason: `${relative} is outside the paths this task owns` };
    return undefined;
  }

  /** Whether `relative` may be committed at all (the commit's and the merge's check): owned, and guarded only when named literally. */
  committable(relative: string): ChangeRefusal | undefined {
    return this.refusal(relative, true);
  }
}

export interface ChangeRefusal {
  path: string;
  /** `guarded`: a guarded path (reverted by the host); `not_owned`: outside the task's paths (the agent undoes it); `outside`: beyond the worktree. */
  kind: 'guarded' | 'not_owned' | 'outside' | 'symlink';
  reason: string;
}
