import { realpathSync } from 'node:fs';
import path from 'node:path';
import { launchGit, whyGitFailed } from '../../core/git/git.js';
import { CheckoutBaseline, type CheckoutState, checkoutState } from './checkoutState.js';
import { type EntryState, readEntry, restoreEntry, sameEntry } from './fileSnapshot.js';
import { GitDirGuard } from './gitDirGuard.js';
import { guardedReason } from './guardedPaths.js';
import type { HostFileChange, HostFilesWatch } from './hostFilesWatch.js';
import type { ChangeRefusal, OwnedPaths } from './ownedPaths.js';
import { RefGuard } from './refGuard.js';
import { changedSince, guardedIgnored, guardedWithin, linkOutside, lookAndStatus, lookAtWorktree, watchGit } from './worktreeChanges.js';

export interface WorktreeWatchOptions {
  /** The agent's worktree. */
  root: string;
  /** The commit the agent started from: every change is judged against it. */
  start: string;
  owned: OwnedPaths;
  /** What orca linked into the worktree (node_modules): never the agent's change. */
  linked: readonly string[];
  /**
   * The worktree was found exactly at `start` by a `git status` of the whole tree (nothing
   * changed, untracked or ignored: the pool's check when it was taken), and since then only orca
   * wrote in it, at the `linked` paths: git is not asked at the start, the tree being known. Unset
   * when anything else may have run there (a setup command, a hook): the whole tree is looked at.
   */
  cleanAtStart?: boolean;
  /** The user's checkout of the repository: changes there while a call ran are named too. */
  checkout?: string;
  /**
   * The checkout's baseline, when the caller made it (it may have begun it already: it does not
   * depend on the worktree). Unset: the watch makes its own.
   */
  checkoutBaseline?: CheckoutBaseline;
  /**
   * When the checkout's baseline is taken. 'open' (the default): the watch's open takes it, and
   * waits for it. 'ready': whoever begins it first (its owner, or the first `ready()`); whoever
   * runs anything that could write the checkout first awaits `ready()` (the guard does before
   * every call: ownedPathsSlots.ts; a job's harness before MCP servers and hooks). The agent's
   * first request need not wait for it, nor compete with it for the CPU.
   */
  checkoutBaselineWait?: 'open' | 'ready';
  /**
   * A check of the tree still running when the watch opened (a pooled worktree's: `cleanAtStart`
   * is its claim until then): `ready()` waits for it too, and rejects with its failure, so no
   * call runs on a tree it has not vouched for. Asked once, at the first `ready()`.
   */
  startCheck?: () => Promise<void>;
  /** The user's configuration and orca's state outside the worktree (hostFilesWatch.ts): changes named, some stop the run. */
  hostFiles?: HostFilesWatch;
}

/** What one look at the worktree found, after putting back what the host puts back. */
export interface WatchFindings {
  /** Changes put back by the host: guarded paths, the git folders, links leading out. */
  reverted: ChangeRefusal[];
  /** Changes the agent must undo: outside its owned paths. */
  toUndo: ChangeRefusal[];
  /** Changes in the user's checkout while the call ran: named, never touched by the host (it cannot tell them from the user's own). */
  outside: ChangeRefusal[];
  /** Set when Claude Code's or git's configuration of the user's changed: the run may not go on (hostFilesWatch.ts). */
  stopRun?: string;
}

/**
 * The host's own look at what an agent changed, after each writing call and before its Report is
 * accepted: the worktree compared with its start commit (untracked, ignored guarded files, links
 * and the git folders included), whatever made the change — a file tool, a script, a redirection.
 *
 * - Guarded paths, the git folders (`.git`, the shared config and hooks) and links leading out of
 *   the worktree are put back at once: they act before anyone reviews them (a hook runs on the
 *   host's next git command, a setting on the next agent's start, a link is a way out).
 * - Changes outside the owned paths are left for the agent to undo (it may have meant them, and
 *   should say so in its Report); they never reach the commit, and the Report waits until they
 *   are gone.
 * - Changes in the user's checkout (a `git -C`, a link written through) made while a call ran
 *   are named to the agent and on the run's events; the host never touches them, since it cannot
 *   tell them from the user's own, and the agent (sandboxed, or held to its worktree by the
 *   policy) could not undo them either. None of it is in the worktree, so none reaches the branch.
 */
export class WorktreeWatch {
  private readonly root: string;
  /** Guarded entries as they were at the start (ignored ones, and tracked ones that changed since). */
  private readonly guardedStart = new Map<string, EntryState>();
  /** Guarded files an allowed Edit or Write wrote, as it left them. */
  private readonly admitted = new Map<string, EntryState>();
  /** The user's checkout as the last look saw it. */
  private checkoutSeen?: CheckoutState;
  /** Settles once checkoutSeen holds the baseline and the start check passed (ready). */
  private checkoutTaken?: Promise<void>;
  /** The last look's `git status` of the whole worktree and the changes it found, while they still tell the tree as it is (lastStatus). */
  private lastLook?: { status: string; changed: readonly string[]; ignored: readonly string[] };

  private constructor(
    private readonly options: WorktreeWatchOptions,
    private readonly gitDir: GitDirGuard,
    private readonly refs: RefGuard,
  ) {
    this.root = realpathSync(options.root);
  }

  static async open(options: WorktreeWatchOptions): Promise<WorktreeWatch> {
    const watch = new WorktreeWatch(options, GitDirGuard.open(options.root), await RefGuard.open(options.root));
    await watch.recordStart();
    return watch;
  }

  private async recordStart(): Promise<void> {
    const { start, linked, cleanAtStart } = this.options;
    // orca's own start files: their guarded entries (`.env.orca`, a copied `.env`) as orca left
    // them, whether git ignores them, or a folder of theirs, or not.
    for (const [file, state] of guardedWithin(this.root, linked)) this.guardedStart.set(file, state);
    if (cleanAtStart) {
      // Found exactly `start` by the take's status of the whole tree, and written since by orca
      // alone, at the linked paths (left out of every change): git has nothing to add.
      if (this.options.checkoutBaselineWait !== 'ready') await this.ready();
      return;
    }
    // Independent reads, asked at once: they are on the way to the agent's first request.
    const [look] = await Promise.all([
      lookAtWorktree(this.root, start, linked, { ignored: true }),
      this.options.checkoutBaselineWait === 'ready' ? undefined : this.ready(),
    ]);
    const changed = look.changed;
    for (const [file, state] of guardedIgnored(this.root, look.ignored)) this.guardedStart.set(file, state);
    // A worktree a hook made, or one that was not clean, may hold guarded changes already: as found.
    for (const file of changed) {
      if (guardedReason(file)) this.guardedStart.set(file, readEntry(path.join(this.root, file)));
    }
  }

  /**
   * Resolves once the user's checkout's baseline is taken (at once without a checkout) and the
   * start check passed (`startCheck`); rejects with the failure of either. Whatever could write
   * the checkout or act on the tree runs only after it (checkoutBaselineWait).
   */
  ready(): Promise<void> {
    if (this.checkoutTaken === undefined) {
      const { checkout, checkoutBaseline, startCheck } = this.options;
      const baseline = checkoutBaseline ?? (checkout ? new CheckoutBaseline(checkout) : undefined);
      this.checkoutTaken = Promise.all([baseline?.taken(), startCheck?.()]).then(([state]) => {
        this.checkoutSeen = state;
      });
    }
    return this.checkoutTaken;
  }

  /** The paths a change to which the host puts back, for messages: the git folders it watches. */
  watchedGitPaths(): string[] {
    return this.gitDir.paths();
  }

  /**
   * The worktree as the last look after a call saw it: git's `status --porcelain=v2 --branch -z
   * --untracked-files=all --no-renames --ignored=matching` of the whole tree. Whoever would ask
   * git about the worktree again before another call ran (the turn reminder before the next
   * model call) reads it here instead: one process fewer per call. Unset while a look runs,
   * after one that failed, and after one that put anything back in the worktree (its status
   * then tells a tree that is no longer there).
   */
  lastStatus(): string | undefined {
    return this.lastLook?.status;
  }

  /**
   * What the same last look found changed since the start (lookAtWorktree's `changed`: untracked
   * files included, what orca linked in left out), under the same conditions as lastStatus.
   */
  lastChanges(): readonly string[] | undefined {
    return this.lastLook?.changed;
  }

  /**
   * A host-side file tool wrote the tree and its look waits for the end of the turn
   * (ownedPathsSlots.ts, fileToolLookWaits): until then the last look no longer tells the tree,
   * so nobody takes it again (lastStatus, lastChanges, the Report's `sinceLastLook`).
   */
  wroteUnlooked(): void {
    this.lastLook = undefined;
  }

  /** A guarded file an allowed Edit or Write just wrote: it stays as long as it is as that call left it. */
  admit(relative: string): void {
    this.admitted.set(relative, readEntry(path.join(this.root, relative)));
  }

  /**
   * After a call that may have written: puts back what the host puts back, and names what the
   * agent must undo. `ranCode` says whether agent code ran (a command): only then are changes to
   * the user's configuration and orca's state the agent's; after a host-side tool (Remember writes
   * a memory card) they are taken as they are. `checkout: false` leaves the user's checkout for
   * a later look (see ownedPathsSlots.ts, `commandsConfined`, for when that is sound): its
   * baseline stays the last look's, so that look names whatever changed there since.
   * `sinceLastLook: 'unchanged'` says nothing can have written the worktree since the last look
   * (reportLook.ts): its git status is taken again instead of asking git, where it still tells
   * the tree (nothing of git's was put back before it); every guarded entry, link and the rest is
   * read afresh all the same.
   */
  async check(options: { ranCode: boolean; checkout?: boolean; sinceLastLook?: 'unchanged' } = { ranCode: true }): Promise<WatchFindings> {
    await this.ready();
    const previous = options.sinceLastLook === 'unchanged' ? this.lastLook : undefined;
    this.lastLook = undefined;
    const reverted: ChangeRefusal[] = [];
    // The git folders first: nothing of git's runs on a config the agent wrote.
    for (const { path: file, restored } of this.gitDir.restore()) {
      reverted.push({
        path: file,
        kind: 'guarded',
        reason: restored
          ? `${file} is one of git's own files (its configuration, hooks, worktree pointer or object stores): changed, and put back as it was`
          : `${file} is one of git's own files (its configuration, hooks, worktree pointer or object stores): changed, and could not be put back`,
      });
    }
    // The user's refs next: a branch or tag moved by a command is put back before anyone reads it.
    for (const ref of await this.refs.restore()) {
      const what =
        ref.was === undefined
          ? 'created'
          : ref.now === undefined
            ? 'deleted'
            : `moved from ${ref.was.slice(0, 12)} to ${ref.now.slice(0, 12)}`;
      reverted.push({
        path: ref.path,
        kind: 'guarded',
        reason: `${ref.path} is a ref of the repository, shared with the user's checkout: ${what}, and ${ref.restored ? 'put back as it was' : 'could not be put back'}`,
      });
    }
    // Asked at once: a git status of each, after every writing call.
    const { checkout } = this.options;
    const [{ look, status }, checkoutNow] = await Promise.all([
      previous && reverted.length === 0
        ? { look: { changed: [...previous.changed], ignored: [...previous.ignored] }, status: previous.status }
        : lookAndStatus(this.root, this.options.start, this.options.linked, { ignored: true }),
      this.checkoutSeen && checkout && options.checkout !== false ? checkoutState(checkout) : undefined,
    ]);
    const changed = look.changed;
    const ignored = guardedIgnored(this.root, look.ignored);
    const guardedNow = new Set([...this.guardedStart.keys(), ...ignored.keys(), ...changed.filter((file) => guardedReason(file))]);
    const putBack = new Set<string>();
    for (const file of guardedNow) {
      const abs = path.join(this.root, file);
      const now = readEntry(abs);
      const start = this.guardedStart.get(file) ?? (await this.startState(file));
      if (sameEntry(now, start)) continue;
      const admitted = this.admitted.get(file);
      if (admitted && sameEntry(admitted, now) && this.options.owned.refusal(file, true) === undefined) continue;
      const restored = restoreEntry(abs, start);
      putBack.add(file);
      reverted.push({
        path: file,
        kind: 'guarded',
        reason: `${guardedReason(file)}: ${restored ? 'put back as it was at the start' : 'could not be put back'}`,
      });
    }
    for (const file of changed) {
      if (putBack.has(file) || guardedReason(file)) continue;
      const out = linkOutside(this.root, file);
      if (!out) continue;
      restoreEntry(path.join(this.root, file), await this.startState(file));
      putBack.add(file);
      reverted.push({
        path: file,
        kind: 'symlink',
        reason: `${file} is a symbolic link leading out of the worktree (to ${out}): removed; what was written through it is beyond the worktree`,
      });
    }
    const host = options.ranCode ? (this.options.hostFiles?.check() ?? []) : (this.options.hostFiles?.rebaseline() ?? []);
    const outside = [
      ...this.checkoutChanges(checkoutNow),
      ...host.map((change): ChangeRefusal => ({ path: change.path, kind: 'outside', reason: hostReason(change) })),
    ];
    const stopRun = stopReason(host);
    // Taken after the git folders and refs were put back, before anything in the tree was.
    if (putBack.size === 0) this.lastLook = { status, changed, ignored: look.ignored };
    // What was put back is no longer changed (a link put back as it was at the start included).
    return { reverted, toUndo: this.undoable(changed.filter((file) => !putBack.has(file))), outside, ...(stopRun ? { stopRun } : {}) };
  }

  /** What changed in the user's checkout since the last look at it (none when it was not looked at now); the baseline moves on. */
  private checkoutChanges(now: CheckoutState | undefined): ChangeRefusal[] {
    const baseline = this.checkoutSeen;
    if (!baseline || !now) return [];
    const changes: ChangeRefusal[] = [];
    for (const key of new Set([...now.keys(), ...baseline.keys()])) {
      if ((now.get(key) ?? CLEAN) === (baseline.get(key) ?? CLEAN)) continue;
      changes.push({
        path: key,
        kind: 'outside',
        reason: `${key} in the repository's own checkout ${this.options.checkout} changed while the call ran: outside your worktree, where you may not write`,
      });
    }
    this.checkoutSeen = now;
    return changes;
  }

  /** What the agent must still undo (its Report is refused while anything is here). */
  async remaining(): Promise<ChangeRefusal[]> {
    return this.undoable(await changedSince(this.root, this.options.start, this.options.linked));
  }

  private undoable(changed: readonly string[]): ChangeRefusal[] {
    const left: ChangeRefusal[] = [];
    for (const file of changed) {
      const refusal = this.options.owned.refusal(file, this.admitted.has(file));
      if (refusal && refusal.kind === 'not_owned') left.push(refusal);
      else if (refusal) left.push({ ...refusal, reason: `${refusal.reason} (it is still changed)` });
    }
    return left;
  }

  /** A path's state in the start commit: missing, or as git would check it out (for a link: its target). */
  private async startState(file: string): Promise<EntryState> {
    const listed = await watchGit(this.root, ['ls-tree', '-z', this.options.start, '--', file]);
    const [, mode, type, sha] = /^(\d+) (\w+) ([0-9a-f]+)\t/.exec(listed) ?? [];
    if (type !== 'blob' || !sha) return { kind: 'missing' };
    const bytes = await blobBytes(this.root, sha);
    if (mode === '120000') return { kind: 'link', target: bytes.toString('utf8') };
    return { kind: 'file', bytes, mode: mode === '100755' ? 0o755 : 0o644 };
  }
}

const CLEAN = 'clean';

/** Why the run stops, when a change to the user's Claude Code or git configuration stops it. */
function stopReason(host: readonly HostFileChange[]): string | undefined {
  const stops = host.filter((change) => change.stops);
  if (stops.length === 0) return undefined;
  return `${stops.map((change) => change.path).join(', ')} changed while an agent's call ran: the run does not go on with a ${stops.some((change) => change.kind === 'claude') ? 'Claude Code' : 'git'} configuration nobody reviewed; look at the file, then start again`;
}

function hostReason(change: HostFileChange): string {
  const what =
    change.kind === 'claude'
      ? "Claude Code's configuration"
      : change.kind === 'git'
        ? "git's configuration"
        : "orca's own state (ORCA_HOME)";
  return `${change.path} is ${what}, outside your worktree, where you may not write: it changed while the call ran${change.stops ? ', and the run stops' : ''}`;
}

async function blobBytes(cwd: string, sha: string): Promise<Buffer> {
  const ran = await launchGit(cwd, ['cat-file', 'blob', sha], { maxBuffer: 256 * 1024 * 1024 });
  if (ran.code !== 0) throw new Error(`git cat-file blob ${sha} failed in ${cwd}: ${whyGitFailed(ran)}`);
  return ran.stdout;
}
