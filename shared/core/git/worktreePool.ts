import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { launch } from '../runtime/launcher.js';
import type { OrcaHome } from '../runtime/orcaHome.js';
import { processAlive } from '../runtime/processAlive.js';
import { ByCommit } from './byCommit.js';
import { gitAt, resolveCommit, runGit, whyGitFailed } from './git.js';
import { poolFolderTimes, recordPoolCheck } from './poolCheck.js';
import {
  BUSY,
  busyName,
  HOST,
  headOf,
  listNames,
  type PoolState,
  READY,
  readState,
  removeEmpty,
  STATE_FILE,
  writeState,
} from './poolFolder.js';
import { checkoutBytes, poolSizeSetting, roomForOne } from './poolSize.js';
import { checkAndBranch, inspect, moveReady, type PooledWorktree, type TakeOptions } from './poolTake.js';
import { repoKey } from './repoKey.js';
import { withRepoLock } from './repoLock.js';
import { pruneWorktrees, removeWorktreeLocked } from './worktree.js';
import { moveWorktree } from './worktreeMove.js';

/** A run's repository on this host, and the commit its jobs start from. */
export interface PoolPlace {
  runId: string;
  /** The repository (its checkout's real path). */
  repo: string;
  base: string;
}

export type { PooledWorktree };

/**
 * `afterTakes`: a refill after a take (when it was first asked, ms since the epoch), which waits
 * until this process's takes have paused (takesPaused): its git processes each fork this whole
 * process, holding its event loop for milliseconds each, and the jobs just taken are starting on
 * that same loop.
 */
type Request = { create: boolean; size: number; afterTakes?: number };

/** A refill waits until no take of this process came for this long (a wave of jobs starting)… */
const TAKES_QUIET_MS = 250;
/** …but no longer than this after it was asked: takes that never pause still find the pool filled. */
const REFILL_WAIT_MAX_MS = 1_000;

/**
 * Detached worktrees kept ready for a run's jobs, per repository and host, in
 * `ORCA_HOME/pool/<run>/<repoKey>/`: a job takes one (moved to its own worktree folder, checked
 * clean, brought to the job's base, its branch made there: `git switch -c` writes only the ref)
 * instead of `git worktree add`ing one, which checks out every file. The folder is the pool's
 * whole state, shared by every process of this host with the same ORCA_HOME (the workers, the
 * coordinator); every change to it is made under the repository's lock, so two takes never get the
 * same worktree. Filling and moving to a new head run in the background, one step under the lock
 * at a time (the checkout itself outside it), never on a job's way to its agent (a refill after a
 * take waits for this process's takes to pause: takesPaused); a worktree that is
 * not exactly its commit is removed, never handed out. The pool goes when its run ends
 * (`removeRunPools`); `close` stops this process's share of the work and leaves the pool
 * consistent (every folder git lists is there).
 */
export class WorktreePool {
  /** The background work of each pool (by folder) in this process, and what was asked of it since it began. */
  private readonly loops = new Map<string, { done: Promise<void>; next?: Request & { place: PoolPlace } }>();
  private readonly repos = new Set<string>();
  private readonly bytes = new Map<string, Promise<number>>();
  private stopped = false;
  /** When this process last took a worktree (ms since the epoch): refills wait for takes to pause. */
  private lastTake = 0;
  /** Aborted by `close`: a background checkout under way is stopped, and its worktree removed. */
  private readonly stopping = new AbortController();
  private readonly size: number;

  constructor(
    private readonly home: OrcaHome,
    /** `slots`: the pool's size when ORCA_POOL_SIZE does not say (the run's agent slots, a worker's concurrency). */
    private readonly options: { slots: number; log?: (line: string) => void },
  ) {
    this.size = poolSizeSetting() ?? options.slots;
  }

  get enabled(): boolean {
    return this.size > 0 && !this.stopped;
  }

  /** The folder of a run's pool of one repository. */
  folder(runId: string, repo: string): string {
    return this.home.pool(runId, repoKey(repo));
  }

  /**
   * Starts (or resumes) filling the run's pool of `place.repo` in the background, at `place.base`
   * when it is newer than the pool's head (then the idle worktrees move to it too). `size`
   * overrides this process's default (the coordinator's run slots).
   */
  warm(place: PoolPlace, size?: number): void {
    if (!this.enabled) return;
    this.schedule(place, { create: true, size: poolSizeSetting() ?? size ?? this.size });
  }

  /**
   * A ready worktree of the run's pool moved to `dir` (which must not exist), checked clean and
   * at `base`, on a new `branch` (detached without one); undefined when none is ready. The pool
   * refills in the background.
   */
  async take(place: PoolPlace, dir: string, branch?: string): Promise<string | undefined> {
    return (await this.takeChecked(place, dir, branch))?.start;
  }

  /** `take`, saying also whether its check still describes the worktree (PooledWorktree), its check left running on request (TakeOptions). */
  async takeChecked(place: PoolPlace, dir: string, branch?: string, options: TakeOptions = {}): Promise<PooledWorktree | undefined> {
    if (!this.enabled) return undefined;
    const folder = this.folder(place.runId, place.repo);
    if (!existsSync(path.join(folder, STATE_FILE))) return undefined;
    const base = await commitOf(place.repo, place.base);
    for (;;) {
      const got = await moveReady(place.repo, folder, dir, base, (line) => this.log(line));
      if (!got) return undefined;
      options.trace?.mark('take_moved');
      this.repos.add(place.repo);
      const taken = await checkAndBranch({ repo: place.repo, got, dir, base, branch, log: (line) => this.log(line) }, options);
      if (!taken) continue;
      this.lastTake = Date.now();
      this.schedule(place, { create: false, size: 0, afterTakes: this.lastTake });
      return taken;
    }
  }

  /** Waits for this process's background work on the pools (tests, benchmarks). */
  async idle(): Promise<void> {
    while (this.loops.size > 0) await Promise.all([...this.loops.values()].map((loop) => loop.done));
  }

  /**
   * Stops filling: a checkout under way is stopped and its worktree removed, one that is done is
   * put back ready; then the worktree records of the repositories touched are pruned.
   */
  async close(): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
    await this.idle();
    for (const repo of this.repos) {
      if (existsSync(repo)) await pruneWorktrees(repo);
    }
  }

  private schedule(place: PoolPlace, request: Request): void {
    const folder = this.folder(place.runId, place.repo);
    const loop = this.loops.get(folder);
    if (loop) {
      loop.next = merged(loop.next, { ...request, place });
      return;
    }
    const entry: { done: Promise<void>; next?: Request & { place: PoolPlace } } = { done: Promise.resolve(), next: { ...request, place } };
    // In the map before the loop starts: a loop that ends at once (a pool closing) must find itself there to leave.
    this.loops.set(folder, entry);
    entry.done = (async () => {
      while (entry.next && !this.stopped) {
        if (entry.next.afterTakes !== undefined) await this.takesPaused(entry.next.afterTakes);
        if (!entry.next || this.stopped) break;
        const { place: where, afterTakes: _afterTakes, ...asked } = entry.next;
        entry.next = undefined;
        try {
          await this.tend(folder, where, asked);
        } catch (error) {
          this.log(`the pool of ready worktrees in ${folder} could not be filled: ${oneLine(error)}`);
        }
      }
      this.loops.delete(folder);
    })();
  }

  /** Resolves once no take of this process came for TAKES_QUIET_MS, REFILL_WAIT_MAX_MS after `askedAt` at the latest, or at once when the pool closes. */
  private async takesPaused(askedAt: number): Promise<void> {
    for (;;) {
      const now = Date.now();
      const wait = Math.min(this.lastTake + TAKES_QUIET_MS, askedAt + REFILL_WAIT_MAX_MS) - now;
      if (wait <= 0 || this.stopped) return;
      await sleep(wait, undefined, { signal: this.stopping.signal }).catch(() => undefined);
    }
  }

  /** One round of a pool's upkeep: its state brought up to date, idle worktrees moved to its head, then filled to its size. */
  private async tend(folder: string, place: PoolPlace, request: Request): Promise<void> {
    const { repo } = place;
    this.repos.add(repo);
    const base = await commitOf(repo, place.base);
    let state = await withRepoLock(repo, async () => {
      const found = readState(folder);
      if (!found && !request.create) return undefined;
      const next: PoolState = found ? { ...found, size: Math.max(found.size, request.size) } : { repo, size: request.size, head: base };
      if (!found || next.size !== found.size) writeState(folder, next);
      await this.sweep(folder, repo);
      return next;
    });
    if (!state) return;
    if (state.head !== base && (await runGit(repo, ['merge-base', '--is-ancestor', state.head, base])).code === 0) {
      // A newer base (a merge happened): the pool moves to it.
      const previous = state.head;
      state = await withRepoLock(repo, async () => {
        const found = readState(folder);
        if (!found) return undefined;
        if (found.head !== previous) return found;
        const next = { ...found, head: base };
        writeState(folder, next);
        return next;
      });
      if (!state) return;
    }
    await this.advance(folder, repo, state.head);
    await this.fill(folder, repo, state);
  }

  /** The idle worktrees not at `head` are checked out there, each claimed (busy) meanwhile so no job takes it half-way. */
  private async advance(folder: string, repo: string, head: string): Promise<void> {
    for (const name of listNames(folder).filter((entry) => READY.test(entry))) {
      if (this.stopped) return;
      if (headOf(path.join(folder, name)) === head) continue;
      const busy = path.join(folder, busyName(name));
      const claimed = await withRepoLock(repo, async () => {
        if (!readState(folder) || !existsSync(path.join(folder, name))) return false;
        await moveWorktree(repo, path.join(folder, name), busy);
        return true;
      });
      if (!claimed) continue;
      const ok = await niceGit(busy, ['checkout', '--quiet', '--detach', head], this.stopping.signal)
        .then(() => pastRacyWindow(this.stopping.signal))
        .then(() => settle(repo, busy, (at, args) => niceGit(at, args, this.stopping.signal)))
        .catch(() => false);
      await this.release(folder, repo, busy, name, ok);
    }
  }

  /**
   * New worktrees until the pool holds its size (ready and busy ones count), the disk allows no
   * more, or the process stops. Each is checked out in turn, and settled and put back ready once
   * the second its checkout ended in has passed (pastRacyWindow), while the next ones are checked
   * out: one after another, each waiting for its own second, a run's pool of 8 took 4–8 s to fill,
   * and its first wave of jobs found few of them ready.
   */
  private async fill(folder: string, repo: string, state: PoolState): Promise<void> {
    const bytes = await this.checkoutSize(repo, state.head);
    const waiting: CheckedOut[] = [];
    for (let added = await this.addOne(folder, repo, bytes); added; added = await this.addOne(folder, repo, bytes)) {
      // `checkout -f` fills the empty worktree as `worktree add` would (post-checkout hook included).
      const ok = await niceGit(added.busy, ['checkout', '--quiet', '--force'], this.stopping.signal).then(
        () => true,
        (error: unknown) => this.checkoutFailed(repo, error),
      );
      waiting.push({ ...added, ok, endedAt: Date.now() });
      if (!ok) break;
      await this.settleDue(folder, repo, waiting, false);
    }
    await this.settleDue(folder, repo, waiting, true);
  }

  /**
   * The checked-out worktrees whose second has passed (all of them with `all`, once theirs has)
   * settled and put back ready: the status after that wait both checks each one and settles its
   * index, so a take's check is a quick one. A failed one is removed.
   */
  private async settleDue(folder: string, repo: string, waiting: CheckedOut[], all: boolean): Promise<void> {
    const last = waiting.at(-1);
    const waited =
      !all ||
      !last ||
      (await pastRacyWindow(this.stopping.signal, last.endedAt).then(
        () => true,
        () => false,
      ));
    while (waiting.length > 0 && (all || isPastRacyWindow(waiting[0]!.endedAt))) {
      const one = waiting.shift()!;
      const ok =
        one.ok && waited && (await settle(repo, one.busy, (at, args) => niceGit(at, args, this.stopping.signal)).catch(() => false));
      await this.release(folder, repo, one.busy, one.name, ok);
    }
  }

  /** One more worktree's record (detached at the pool's head, no files yet: they are checked out after, outside the lock); undefined when the pool is full. */
  private async addOne(folder: string, repo: string, bytes: number): Promise<{ busy: string; name: string } | undefined> {
    if (this.stopped) return undefined;
    const name = `w${randomBytes(4).toString('hex')}`;
    const busy = path.join(folder, busyName(name));
    const added = await withRepoLock(repo, async () => {
      const now = readState(folder);
      if (!now) return false;
      const held = listNames(folder).filter((entry) => READY.test(entry) || BUSY.test(entry)).length;
      if (held >= now.size || !roomForOne(folder, bytes)) return false;
      await gitAt(repo).raw(['worktree', 'add', '--quiet', '--no-checkout', '--detach', busy, now.head]);
      return true;
    });
    return added ? { busy, name } : undefined;
  }

  private checkoutFailed(repo: string, error: unknown): false {
    if (!this.stopped) this.log(`a pooled worktree of ${repo} could not be checked out: ${oneLine(error)}`);
    return false;
  }

  /** A busy worktree back in the pool (ready) when it is sound and the pool still open; removed otherwise. */
  private async release(folder: string, repo: string, busy: string, name: string, ok: boolean): Promise<void> {
    await withRepoLock(repo, async () => {
      if (ok && readState(folder)) {
        try {
          await moveWorktree(repo, busy, path.join(folder, name));
          return;
        } catch (error) {
          this.log(`a pooled worktree could not be put back ready, removed: ${oneLine(error)}`);
        }
      }
      await removeWorktreeLocked(repo, busy);
      // The run ended meanwhile: the last one out takes the pool's folder with it.
      if (!readState(folder)) removeEmpty(folder);
    });
  }

  /** Busy worktrees whose process is gone (killed mid-fill) are removed: nobody will finish them. Under the lock. */
  private async sweep(folder: string, repo: string): Promise<void> {
    for (const name of listNames(folder)) {
      const busy = BUSY.exec(name);
      if (busy && busy[2] === HOST && !processAlive(Number(busy[3]))) await removeWorktreeLocked(repo, path.join(folder, name));
    }
  }

  private checkoutSize(repo: string, head: string): Promise<number> {
    let found = this.bytes.get(repo);
    if (!found) {
      found = checkoutBytes(repo, head);
      found.catch(() => this.bytes.delete(repo));
      this.bytes.set(repo, found);
    }
    return found;
  }

  private log(line: string): void {
    (this.options.log ?? ((text: string) => process.stderr.write(`orca: ${text}\n`)))(line);
  }
}

/**
 * git for the pool's background checkouts, at a lower CPU priority (niceness 10): on a busy host
 * they yield to the agents starting, whose worktrees they are filling the pool for. What git
 * starts after that (a checkout's hook, a filter) inherits it.
 */
async function niceGit(dir: string, args: string[], signal: AbortSignal): Promise<string> {
  const env = { ...process.env, GIT_TERMINAL_PROMPT: '0' };
  const ran = await launch('git', args, { cwd: dir, env, maxBuffer: 64 * 1024 * 1024, signal, niceness: 10 });
  if (ran.code !== 0) throw new Error(`git ${args[0]} in ${dir} failed: ${whyGitFailed(ran)}`);
  return ran.stdout.toString('utf8');
}

/**
 * Waits, in the background, until the clock is in a later second than the checkout just ended in.
 * git trusts a file's cached stat only when the file is older than the index: files written in the
 * index's own second are "racily clean", and every `git status` reads them whole again until one
 * writes the index in a later second. The settling status after this leaves an index a take's
 * check can trust by stat alone (20,000 files at load 5: about 40 ms instead of about 200).
 */
function pastRacyWindow(signal: AbortSignal, endedAt = Date.now()): Promise<void> {
  return sleep(Math.max(0, racyWindowEnd(endedAt) - Date.now()), undefined, { signal });
}

/** Whether the clock is past the second `endedAt` (ms since the epoch) is in, with room. */
function isPastRacyWindow(endedAt: number): boolean {
  return Date.now() >= racyWindowEnd(endedAt);
}

function racyWindowEnd(endedAt: number): number {
  return endedAt - (endedAt % 1000) + 1000 + 20;
}

/** A pooled worktree being filled: its files checked out (or not: `ok`), when that ended. */
interface CheckedOut {
  busy: string;
  name: string;
  ok: boolean;
  endedAt: number;
}

/**
 * The settling check of a pooled worktree after its checkout: its folders' times taken first
 * (poolCheck.ts), then the whole-tree status; clean, the times are recorded for the take.
 */
async function settle(repo: string, dir: string, run: (at: string, args: string[]) => Promise<string>): Promise<boolean> {
  const head = headOf(dir);
  if (!head) return false;
  const folders = await commitFolders.get(
    head,
    async () => (await run(dir, ['ls-tree', '-r', '-d', '-z', '--name-only', head])).split('\0').filter(Boolean),
    repo,
  );
  const times = poolFolderTimes(dir, head, folders);
  const found = await inspect(dir, run);
  if (found.dirty !== undefined || found.head !== head) return false;
  recordPoolCheck(dir, times);
  return true;
}

/** A commit's folders (`git ls-tree -r -d`), asked once for every worktree the pool settles at that commit. */
const commitFolders = new ByCommit<string[]>(4);

function merged(a: Request | undefined, b: Request & { place: PoolPlace }): Request & { place: PoolPlace } {
  if (!a) return b;
  // A refill asked beside a request that may not wait (a warm, a new head) waits no longer.
  return {
    place: b.place,
    create: a.create || b.create,
    size: Math.max(a.size, b.size),
    afterTakes: a.afterTakes !== undefined && b.afterTakes !== undefined ? Math.min(a.afterTakes, b.afterTakes) : undefined,
  };
}

function commitOf(repo: string, ref: string): Promise<string> {
  return /^[0-9a-f]{40}$/.test(ref) ? Promise.resolve(ref) : resolveCommit(repo, ref);
}

function oneLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).trim().replace(/\s*\n\s*/g, '; ');
}
