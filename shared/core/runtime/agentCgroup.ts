import { randomBytes } from 'node:crypto';
import { accessSync, constants, existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pollUntil } from './pollUntil.js';
import { processAlive } from './processAlive.js';

/**
 * A cgroup (v2) per process group an agent's code runs in. A process group holds only the
 * processes that stay in it: `setsid`, a double fork or `nohup … &` leave it, and a signal to the
 * group no longer reaches them. A cgroup holds every descendant whatever it does to its session or
 * group (leaving needs write access to another cgroup's `cgroup.procs`, which the sandbox's
 * read-only /sys denies), and `cgroup.kill` ends them all at once.
 *
 * Layout: `<root>/orca-<pid>/g<n>-<random>`, where root is `ORCA_CGROUP_ROOT` or this process's own cgroup
 * (from /proc/self/cgroup, under the cgroup2 mount), `<pid>` the process that made them (a worker,
 * a CLI) and `g<n>-…` one group. Where the root cannot be written (a container's read-only
 * /sys/fs/cgroup, a systemd user session without delegation, macOS), there is no cgroup and the
 * sandbox's own pid namespace is what holds (bwrap --unshare-pid --die-with-parent).
 */
export const CGROUP_ROOT_ENV = 'ORCA_CGROUP_ROOT';

const PROCESS_DIR_PREFIX = 'orca-';
const KILL_WAIT_MS = 5_000;
/** The longest pause between looks at a cgroup being emptied. */
const POLL_MS = 20;

/** Where this process makes its agents' cgroups, or why it cannot. */
export type CgroupHost = { root: string; problem?: undefined } | { root?: undefined; problem: string };

const hosts = new Map<string, CgroupHost>();
let made = 0;

/** The cgroup root for `env` (probed once per root): writable and with `cgroup.procs`, or the problem. */
export function cgroupHost(env: NodeJS.ProcessEnv = process.env): CgroupHost {
  const configured = env[CGROUP_ROOT_ENV]?.trim();
  const key = configured || '(own)';
  let host = hosts.get(key);
  if (!host) {
    host = probeRoot(configured || ownCgroupDir());
    hosts.set(key, host);
  }
  return host;
}

/** One group's cgroup: the command joins it before it runs, and `kill` ends everything in it. */
export class AgentCgroup {
  private constructor(
    readonly dir: string,
    /** This process's folder of cgroups (`<root>/orca-<pid>`), the one the watchdog ends should the process die unseen. */
    readonly owner: string,
  ) {}

  /** A new cgroup under this process's folder; undefined where the host gives none (`cgroupHost`). */
  static create(env: NodeJS.ProcessEnv = process.env): AgentCgroup | undefined {
    const host = cgroupHost(env);
    if (host.root === undefined) return undefined;
    const owner = processDir(host.root);
    // The random part: a folder left by an earlier process that had this pid is never taken for ours.
    const dir = path.join(owner, `g${++made}-${randomBytes(3).toString('hex')}`);
    mkdirSync(dir);
    return new AgentCgroup(dir, owner);
  }

  /**
   * The command wrapped so that it joins the cgroup before it runs: a shell writes its own pid to
   * `cgroup.procs`, then execs the command (same pid), so nothing it starts is ever outside.
   */
  wrap(file: string, args: string[]): { file: string; args: string[] } {
    const join = 'echo $$ > "$0/cgroup.procs" || { echo "orca: could not join the cgroup $0" >&2; exit 125; }; exec "$@"';
    return { file: '/bin/sh', args: ['-c', join, this.dir, file, ...args] };
  }

  /** SIGKILL to every process in the cgroup, however it left its group; resolves once none is left and the cgroup is gone. */
  async kill(): Promise<void> {
    await killCgroupDir(this.dir);
  }

  /** What `kill` does, for an exit handler where nothing async runs: no wait, no removal. */
  killNow(): void {
    signalCgroup(this.dir);
  }

  /**
   * Stops every process in the cgroup where it is (cgroup v2's freezer), and resolves once each is
   * stopped: none runs, or writes, until `thaw` (one in a system call finishes it first). `kill`
   * ends frozen processes as any others. False, holding nothing, on a kernel without the freezer
   * (before Linux 5.2: no `cgroup.freeze`); throws where it is there and the cgroup does not freeze.
   */
  async freeze(): Promise<boolean> {
    if (!existsSync(path.join(this.dir, 'cgroup.freeze'))) return false;
    await setFrozen(this.dir, true);
    return true;
  }

  /** Lets the processes a `freeze` stopped go on; resolves once the cgroup says it is no longer frozen. */
  async thaw(): Promise<void> {
    await setFrozen(this.dir, false);
  }
}

/** Writes `cgroup.freeze`, then waits until `cgroup.events` says the cgroup is (or is no longer) frozen. */
async function setFrozen(dir: string, frozen: boolean): Promise<void> {
  const state = frozen ? '1' : '0';
  writeFileSync(path.join(dir, 'cgroup.freeze'), state);
  const reached = await pollUntil(() => eventSays(dir, `frozen ${state}`), KILL_WAIT_MS, POLL_MS);
  if (!reached) throw new Error(`cgroup ${dir} did not ${frozen ? 'freeze' : 'thaw'} within ${KILL_WAIT_MS} ms`);
}

/**
 * Ends the agents of processes that are gone (a worker killed with SIGKILL, the OOM killer): every
 * `orca-<pid>` folder under the root whose pid no longer runs, its processes killed and its
 * folders removed. A worker calls this at start. Returns the folders swept.
 */
export async function sweepStaleCgroups(env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  const host = cgroupHost(env);
  if (host.root === undefined) return [];
  const swept: string[] = [];
  for (const name of readdirSync(host.root)) {
    const pid = Number(name.slice(PROCESS_DIR_PREFIX.length));
    if (!name.startsWith(PROCESS_DIR_PREFIX) || !Number.isInteger(pid) || pid <= 0 || processAlive(pid)) continue;
    await killCgroupDir(path.join(host.root, name));
    swept.push(name);
  }
  return swept;
}

/** One line on what ends the processes an agent's command leaves behind here (a worker prints it at start). */
export function containmentLine(env: NodeJS.ProcessEnv = process.env): string {
  const host = cgroupHost(env);
  if (host.root !== undefined)
    return `processes: a cgroup per agent command under ${host.root}: what leaves its process group (setsid, nohup, a double fork) dies with it`;
  return (
    `processes: no cgroup (${host.problem}): in bwrap the sandbox's pid namespace ends what a command leaves behind; ` +
    `with --sandbox off a process that leaves its group (setsid) outlives the agent (${CGROUP_ROOT_ENV} names a writable cgroup v2 folder)`
  );
}

/** This process's folder of cgroups, `<root>/orca-<pid>`, made on first use. */
export function processDir(root: string): string {
  const dir = path.join(root, `${PROCESS_DIR_PREFIX}${process.pid}`);
  if (!existsSync(dir)) mkdirSync(dir);
  return dir;
}

/** cgroup.kill, then waits until the cgroup and its children hold no process, then removes them (deepest first). */
async function killCgroupDir(dir: string): Promise<void> {
  if (!existsSync(dir)) return;
  // Signalled again at each look: a process that forked between two looks is killed too.
  const emptied = await pollUntil(
    () => {
      signalCgroup(dir);
      return !populated(dir);
    },
    KILL_WAIT_MS,
    POLL_MS,
  );
  if (!emptied) throw new Error(`cgroup ${dir} still holds processes after SIGKILL (pids ${members(dir).join(', ')})`);
  removeTree(dir);
}

/**
 * Kills what the cgroup and its children hold. `cgroup.kill` (Linux 5.14) does it in one write;
 * before it, freezing first keeps a forking process from getting ahead of the pids read.
 */
function signalCgroup(dir: string): void {
  const kill = path.join(dir, 'cgroup.kill');
  if (existsSync(kill)) {
    writeIfPresent(kill, '1');
    return;
  }
  writeIfPresent(path.join(dir, 'cgroup.freeze'), '1');
  for (const pid of members(dir)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
    }
  }
}

/** Whether any process is in the cgroup or below it (`cgroup.events`' `populated`). */
function populated(dir: string): boolean {
  try {
    return eventSays(dir, 'populated 1');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

/** Whether the cgroup's `cgroup.events` holds `line` (`populated 1`, `frozen 0`) as one of its lines. */
function eventSays(dir: string, line: string): boolean {
  return readFileSync(path.join(dir, 'cgroup.events'), 'utf8').split('\n').includes(line);
}

/** The pids in the cgroup and its children. */
function members(dir: string): number[] {
  const pids: number[] = [];
  const walk = (at: string) => {
    try {
      for (const line of readFileSync(path.join(at, 'cgroup.procs'), 'utf8').split('\n')) if (line) pids.push(Number(line));
      for (const entry of readdirSync(at, { withFileTypes: true })) if (entry.isDirectory()) walk(path.join(at, entry.name));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  };
  walk(dir);
  return pids;
}

/** A cgroup folder is removed with rmdir (its files are the kernel's), children first. */
function removeTree(dir: string): void {
  try {
    for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) removeTree(path.join(dir, entry.name));
    rmdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

function writeIfPresent(file: string, value: string): void {
  try {
    writeFileSync(file, value);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/** This process's cgroup folder: its `0::/path` line of /proc/self/cgroup under the cgroup2 mount; undefined off Linux or without cgroup v2. */
function ownCgroupDir(): string | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    const own = /^0::(.*)$/m.exec(readFileSync('/proc/self/cgroup', 'utf8'))?.[1];
    const mount = readFileSync('/proc/self/mountinfo', 'utf8')
      .split('\n')
      .map((line) => line.split(' '))
      .find((fields) => fields[fields.indexOf('-') + 1] === 'cgroup2')?.[4];
    if (own === undefined || mount === undefined) return undefined;
    return path.join(mount.replace(/\\040/g, ' '), own);
  } catch {
    return undefined; // no /proc: no cgroup either
  }
}

/** Whether orca can make cgroups under `root` and move processes into them. */
function probeRoot(root: string | undefined): CgroupHost {
  if (root === undefined) return { problem: 'no cgroup v2 here' };
  try {
    // access(2) answers EROFS for a read-only mount, EACCES without delegation; root passes otherwise.
    accessSync(path.join(root, 'cgroup.procs'), constants.W_OK);
    accessSync(root, constants.W_OK);
    return { root };
  } catch (error) {
    return { problem: `the cgroup ${root} cannot be written (${(error as NodeJS.ErrnoException).code ?? String(error)})` };
  }
}
