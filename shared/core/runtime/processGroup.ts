import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { AgentCgroup } from './agentCgroup.js';
import { GroupWatchdog } from './groupWatchdog.js';
import { NamespaceInit } from './namespaceInit.js';
import { pollUntil } from './pollUntil.js';

/** How long a group gets to stop after SIGTERM before SIGKILL. */
export const DEFAULT_KILL_GRACE_MS = 2_000;
/** SIGKILL cannot be refused, but a process in uninterruptible I/O dies only when the I/O returns. */
const SIGKILL_WAIT_MS = 5_000;
/** The longest pause between looks at a group being killed. */
const POLL_MS = 25;
/** How long output is still read after the group was killed, before its pipes are given up. */
const OUTPUT_DRAIN_MS = 2_000;

export interface LeaderExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface SpawnGroupOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Written to the command's stdin, which is then closed; without it stdin is closed from the start. */
  stdin?: string;
  /** Leave stdin an open pipe for the caller to write to (a language server's protocol); `stdin` is ignored then. */
  keepStdinOpen?: boolean;
  /** A fourth pipe, the command's fd 3, for it to write to the caller apart from its output (Bash's PIPESTATUS). */
  statusPipe?: boolean;
  /**
   * The fd on which the launcher (bwrap's `--info-fd`) names its pid namespace's init: `kill()`
   * then resolves only once that init has finished exiting, and with it every process of the
   * namespace (namespaceInit.ts). Above 3 when `statusPipe` takes fd 3.
   */
  namespaceInfoFd?: number;
  /**
   * false: no cgroup of its own, only the process group. For programs the user configured to run
   * as themselves (MCP servers, as in Claude Code), not agent-written code.
   */
  cgroup?: boolean;
}

/** Every group this module started and has not yet seen gone, so they can all be killed at once. */
const live = new Set<ProcessGroup>();
let exitHookInstalled = false;
/** Stops the live groups should this process die without running its exit handler (SIGKILL). */
const watchdog = new GroupWatchdog();

/**
 * A command running in its own process group (and session), so that one signal to the group
 * reaches everything it started: children, grandchildren, background jobs. Whoever spawns a group
 * calls `kill()` when done with it, whatever happened; that is what removes it from the live set.
 */
export class ProcessGroup {
  readonly pgid: number;
  /** The leader's exit; its children may live on in the group until `kill()`. */
  readonly exited: Promise<LeaderExit>;
  /** The leader exited and its stdout and stderr are closed (all its output was read). */
  private readonly closed: Promise<void>;
  private killing: Promise<void> | undefined;

  constructor(
    readonly child: ChildProcessByStdio<Writable | null, Readable, Readable>,
    /** The group's cgroup where the host gives one (agentCgroup.ts): it holds what left the group too. */
    readonly cgroup?: AgentCgroup,
    /** The init of the pid namespace the command runs in, as its launcher named it (spawnGroup's `namespaceInfoFd`). */
    private readonly namespaceInit?: Promise<NamespaceInit | undefined>,
  ) {
    if (child.pid === undefined) throw new Error('ProcessGroup needs a started child process');
    // With `detached: true` the child calls setsid(), so its pid is its group id.
    this.pgid = child.pid;
    this.exited = once(child, 'exit').then(([code, signal]) => ({ code, signal }) as LeaderExit);
    this.closed = new Promise((resolve) => child.once('close', () => resolve()));
  }

  /**
   * Waits for the leader to exit, the timeout or the abort, whichever comes first, then kills the
   * group however the wait ended, so nothing the command started (background jobs included)
   * outlives it. Says what stopped it: undefined when the leader exited by itself.
   */
  async waitForEnd(options: { timeoutMs: number; signal?: AbortSignal; graceMs?: number }): Promise<'timeout' | 'abort' | undefined> {
    const { signal } = options;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    try {
      const stop = new Promise<'timeout' | 'abort'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), options.timeoutMs);
        onAbort = () => resolve('abort');
        signal?.addEventListener('abort', onAbort, { once: true });
        if (signal?.aborted) resolve('abort');
      });
      return await Promise.race([this.exited.then(() => undefined), stop]);
    } finally {
      clearTimeout(timer);
      if (onAbort) signal?.removeEventListener('abort', onAbort);
      await this.kill(options.graceMs);
    }
  }

  /**
   * Whether the output pipes close within `ms`. After `kill()` they close at once, unless a process
   * that left the group (a daemon that called setsid) still holds them: then the caller stops reading.
   */
  async outputClosedWithin(ms = OUTPUT_DRAIN_MS): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        this.closed.then(() => true),
        new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms))),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Stops every process of the group: SIGTERM, then SIGKILL after `graceMs` if any is left, then
   * SIGKILL to whatever is left in its cgroup (what left the group with setsid, a double fork,
   * nohup), then waits for its pid namespace's init to finish exiting where it runs in one, and
   * resolves only once none is left (throws if one survives SIGKILL). Cheap when the group is
   * already empty; concurrent calls share one attempt.
   */
  kill(graceMs = DEFAULT_KILL_GRACE_MS): Promise<void> {
    this.killing ??= terminateGroup(this.pgid, graceMs)
      .then(() => this.cgroup?.kill())
      // The launcher is gone by now, so its init has been SIGKILLed (bwrap's --die-with-parent) or is exiting by itself.
      .then(async () => (await this.namespaceInit)?.waitForEnd(SIGKILL_WAIT_MS))
      .then(
        () => {
          live.delete(this);
          watchdog.ended(this.pgid);
        },
        (error: unknown) => {
          this.killing = undefined; // let a later call (killAllProcessGroups) try again
          throw error;
        },
      );
    return this.killing;
  }
}

/**
 * Starts `file args` in a new process group with stdout/stderr piped and stdin closed (after
 * `options.stdin`, when given), or left open with `keepStdinOpen`. Throws when the process cannot be started (missing program,
 * missing cwd).
 */
export async function spawnGroup(file: string, args: string[], options: SpawnGroupOptions): Promise<ProcessGroup> {
  const stdio = stdioOf(options);
  const cgroup = options.cgroup === false ? undefined : AgentCgroup.create();
  const command = cgroup ? cgroup.wrap(file, args) : { file, args };
  const child = spawn(command.file, command.args, {
    cwd: options.cwd,
    env: options.env,
    detached: true,
    stdio,
  });
  if (child.pid === undefined) {
    const [error] = (await once(child, 'error')) as [Error];
    await cgroup?.kill();
    throw new Error(`could not start ${file} in ${options.cwd}: ${error.message}`);
  }
  if (child.stdin) {
    // A command may exit without reading its input; the broken pipe that follows is not an error.
    child.stdin.on('error', () => {});
    if (!options.keepStdinOpen) child.stdin.end(options.stdin);
  }
  installExitHook();
  const info = options.namespaceInfoFd === undefined ? undefined : NamespaceInit.read(child.stdio[options.namespaceInfoFd] as Readable);
  // Its failure is kill()'s to report, when it awaits it; until then it must not count as unhandled.
  info?.catch(() => undefined);
  // stdout and stderr are pipes above, so never null.
  const group = new ProcessGroup(child as ChildProcessByStdio<Writable | null, Readable, Readable>, cgroup, info);
  live.add(group);
  watchdog.started(group.pgid, cgroup?.owner);
  return group;
}

/**
 * How a sandbox (core/sandbox) starts one shell command: the program and its arguments. Asked for
 * an `infoFd`, one with a pid namespace (bwrap, `--info-fd`) names its init on that fd, which the
 * caller must give it open (spawnShellGroup does), and returns it in `infoFd`; one without a
 * namespace leaves it out.
 */
export type ShellCommandWrap = (
  command: string,
  cwd: string,
  options?: { infoFd?: number },
) => { file: string; args: string[]; infoFd?: number };

/**
 * `bash -c command` started as spawnGroup starts a program, through the sandbox's `wrap` when
 * there is one. Where the sandbox runs it in a pid namespace, the group's `kill()` also waits for
 * that namespace's init, so the command ends only once everything it started has (the info pipe
 * takes the first fd after stdio and the status pipe).
 */
export function spawnShellGroup(
  command: string,
  wrap: ShellCommandWrap | undefined,
  options: Omit<SpawnGroupOptions, 'namespaceInfoFd'>,
): Promise<ProcessGroup> {
  const wrapped = wrap?.(command, options.cwd, { infoFd: options.statusPipe ? 4 : 3 });
  const { file, args, infoFd } = wrapped ?? { file: 'bash', args: ['-c', command] };
  return spawnGroup(file, args, { ...options, ...(infoFd === undefined ? {} : { namespaceInfoFd: infoFd }) });
}

/** stdin, stdout and stderr, then the status pipe (fd 3) and the namespace's info pipe where asked, nothing between. */
function stdioOf(options: SpawnGroupOptions): Array<'pipe' | 'ignore'> {
  const stdio: Array<'pipe' | 'ignore'> = [options.stdin === undefined && !options.keepStdinOpen ? 'ignore' : 'pipe', 'pipe', 'pipe'];
  if (options.statusPipe) stdio[3] = 'pipe';
  const info = options.namespaceInfoFd;
  if (info !== undefined) {
    if (info < 3 || stdio[info] !== undefined)
      throw new Error(`namespaceInfoFd ${info} is taken: stdio and the status pipe use 0-${stdio.length - 1}`);
    while (stdio.length < info) stdio.push('ignore');
    stdio[info] = 'pipe';
  }
  return stdio;
}

/** The group ids of the groups started here that are not yet known to be gone. */
export function liveProcessGroups(): number[] {
  return [...live].map((group) => group.pgid);
}

/** Kills every live group (a worker process calls this on SIGTERM); throws if any survives. */
export async function killAllProcessGroups(graceMs = DEFAULT_KILL_GRACE_MS): Promise<void> {
  const results = await Promise.allSettled([...live].map((group) => group.kill(graceMs)));
  const failures = results.flatMap((result) => (result.status === 'rejected' ? [result.reason as unknown] : []));
  if (failures.length > 0) throw new AggregateError(failures, `${failures.length} process group(s) could not be killed`);
}

/**
 * Whether any process of the group is still running. kill(2) counts zombies too, and where the
 * init process does not reap orphans (some containers and VMs) a zombie stays for good and cannot
 * be signalled away, so on Linux the zombies are looked past in /proc.
 */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ESRCH') return false;
    if (code === 'EPERM') return true;
    throw error;
  }
  if (process.platform !== 'linux') return true;
  return runningMembers(pgid).length > 0;
}

/** Pids of the group's processes that are not zombies, read from /proc. */
export function runningMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited between readdir and read
    }
    // "pid (comm) state ppid pgrp …": comm may hold spaces and parentheses, so split after the last ')'.
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(pgrp) === pgid && state !== 'Z' && state !== 'X') members.push(Number(entry));
  }
  return members;
}

async function terminateGroup(pgid: number, graceMs: number): Promise<void> {
  if (!groupAlive(pgid)) return;
  signalGroup(pgid, 'SIGTERM');
  // A stopped process acts on SIGTERM only once continued.
  signalGroup(pgid, 'SIGCONT');
  if (await waitUntilGone(pgid, graceMs)) return;
  signalGroup(pgid, 'SIGKILL');
  if (await waitUntilGone(pgid, SIGKILL_WAIT_MS)) return;
  throw new Error(`process group ${pgid} is still running after SIGTERM and SIGKILL (pids ${runningMembers(pgid).join(', ')})`);
}

function waitUntilGone(pgid: number, ms: number): Promise<boolean> {
  return pollUntil(() => !groupAlive(pgid), ms, POLL_MS);
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

/**
 * Detached groups do not die with this process. If it exits with groups still live (an uncaught
 * exception, process.exit), SIGKILL them: nothing async can run any more, so no grace period.
 */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const group of live) {
      signalGroup(group.pgid, 'SIGKILL');
      group.cgroup?.killNow();
    }
  });
}
