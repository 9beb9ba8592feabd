import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import getPort from 'get-port';
import { compiledEntry, packageRoot } from '../../shared/core/runtime/compiledEntry.js';

/**
 * "Hosts" on this machine: each a network namespace joined to the test's own by a veth pair, with
 * a filesystem view (bwrap) that hides the folders it names, and a hostname of its own. What runs
 * there reaches the test's side only at the veth addresses: Redis and a git daemon the test binds
 * to `serviceAddress` (host 0's test-side address; the other hosts route to it through their own
 * pair, which the test's side takes as one of its addresses). Needs root. Everything made here is
 * removed by `close`, which is safe to call after a partial `create`.
 */
export class SimulatedHosts {
  /** A prefix for every namespace and interface name: unique per instance, short (IFNAMSIZ is 16). */
  private readonly tag = `o${randomBytes(3).toString('hex')}`;
  /** 10.<net>.<host>.0/24 per host: the second octet chosen at random to stay clear of other tests. */
  private readonly net = 100 + (randomBytes(1)[0]! % 150);
  readonly hosts: SimulatedHost[] = [];
  private readonly children: ChildProcess[] = [];

  static async create(names: string[]): Promise<SimulatedHosts> {
    const made = new SimulatedHosts();
    try {
      for (const [index, name] of names.entries()) made.addHost(name, index + 1);
    } catch (error) {
      await made.close();
      throw error;
    }
    return made;
  }

  /** The address services for the hosts listen on (the test's side of host 0's pair). */
  get serviceAddress(): string {
    return this.hosts[0]!.testSide;
  }

  private addHost(name: string, index: number): void {
    const ns = `${this.tag}-${index}`;
    const outer = `${this.tag}o${index}`;
    const inner = `${this.tag}i${index}`;
    const host: SimulatedHost = { name, ns, outer, testSide: `10.${this.net}.${index}.1`, hostSide: `10.${this.net}.${index}.2` };
    ip('netns', 'add', ns);
    this.hosts.push(host);
    ip('link', 'add', outer, 'type', 'veth', 'peer', 'name', inner);
    ip('link', 'set', inner, 'netns', ns);
    ip('addr', 'add', `${host.testSide}/24`, 'dev', outer);
    ip('link', 'set', outer, 'up');
    ip('netns', 'exec', ns, 'ip', 'addr', 'add', `${host.hostSide}/24`, 'dev', inner);
    ip('netns', 'exec', ns, 'ip', 'link', 'set', inner, 'up');
    ip('netns', 'exec', ns, 'ip', 'link', 'set', 'lo', 'up');
    ip('netns', 'exec', ns, 'ip', 'route', 'add', 'default', 'via', host.testSide);
  }

  /** A redis-server of the test's own, bound to the service address only; resolves with its URL once it answers. */
  async startRedis(dir: string): Promise<string> {
    const port = await getPort({ host: this.serviceAddress });
    mkdirSync(dir, { recursive: true });
    const child = this.track(
      spawn(
        'redis-server',
        ['--bind', this.serviceAddress, '--port', String(port), '--protected-mode', 'no', '--save', '', '--appendonly', 'no', '--dir', dir],
        { stdio: 'ignore', detached: true },
      ),
    );
    const url = `redis://${this.serviceAddress}:${port}`;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`redis-server on ${url} exited (${child.exitCode})`);
      try {
        execFileSync('redis-cli', ['-h', this.serviceAddress, '-p', String(port), 'ping'], { stdio: 'pipe' });
        return url;
      } catch {
        await sleep(50);
      }
    }
  }

  /** `git daemon` serving the bare repositories under `base` (fetch and push), bound to the service address; resolves with its base URL. */
  async startGitDaemon(base: string): Promise<string> {
    const port = await getPort({ host: this.serviceAddress });
    const child = this.track(
      spawn(
        'git',
        [
          'daemon',
          '--reuseaddr',
          '--export-all',
          '--enable=receive-pack',
          `--base-path=${base}`,
          `--listen=${this.serviceAddress}`,
          `--port=${port}`,
          base,
        ],
        // A group of its own, killed whole: `git daemon` runs `git-daemon` as its child, which a
        // SIGKILL to `git` alone would leave listening (orphaned) long after the test.
        { stdio: 'ignore', detached: true },
      ),
    );
    const url = `git://${this.serviceAddress}:${port}`;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`git daemon on ${url} exited (${child.exitCode})`);
      try {
        execFileSync('git', ['ls-remote', `${url}/`], { stdio: 'pipe', timeout: 2_000 });
      } catch (error) {
        // A daemon that answers refuses the empty path; one not listening yet refuses the connection.
        if (!/connection refused|unable to connect/i.test(String((error as { stderr?: Buffer }).stderr ?? ''))) return url;
      }
      await sleep(50);
    }
  }

  /**
   * Starts `orca worker` on a host: in its network namespace, under bwrap with `hide` covered by
   * empty tmpfs mounts and the host's name as hostname. Resolves once it takes jobs.
   */
  async startWorker(host: SimulatedHost, options: { env: NodeJS.ProcessEnv; hide: string[]; args?: string[] }): Promise<HostWorker> {
    const bwrap = ['--dev-bind', '/', '/', ...options.hide.flatMap((dir) => ['--tmpfs', dir]), '--unshare-uts', '--hostname', host.name];
    const child = this.track(
      spawn(
        'ip',
        ['netns', 'exec', host.ns, 'bwrap', ...bwrap, '--', process.execPath, compiledEntry('workers/main.ts'), ...(options.args ?? [])],
        { cwd: packageRoot(), env: options.env, stdio: ['ignore', 'ignore', 'pipe'] },
      ),
    );
    const worker = new HostWorker(host, child);
    await worker.ready;
    return worker;
  }

  private track(child: ChildProcess): ChildProcess {
    this.children.push(child);
    return child;
  }

  /** Stops what it started (SIGKILL: these are throwaway), then removes the interfaces and namespaces. */
  async close(): Promise<void> {
    // What runs in a namespace first (a worker inside bwrap outlives its killed parent), then the rest.
    for (const host of this.hosts) {
      for (const pid of nsPids(host.ns)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Gone already.
        }
      }
    }
    for (const child of this.children) {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = once(child, 'exit');
        child.kill('SIGKILL');
        await exited;
      }
      // A child started in a group of its own (git daemon, redis) takes what it started with it.
      if (child.spawnargs[0] !== 'ip') killGroup(child.pid);
    }
    for (const host of this.hosts) {
      tryIp('link', 'del', host.outer);
      tryIp('netns', 'del', host.ns);
    }
  }
}

export interface SimulatedHost {
  name: string;
  ns: string;
  outer: string;
  testSide: string;
  hostSide: string;
}

/** An `orca worker` on a simulated host, its stderr kept. Its `pid` is the node process's own, as the worker reports it. */
export class HostWorker {
  readonly ready: Promise<number>;
  private log = '';

  constructor(
    readonly host: SimulatedHost,
    readonly child: ChildProcess,
  ) {
    this.ready = new Promise((resolve, reject) => {
      child.stderr!.on('data', (chunk: Buffer) => {
        this.log = (this.log + chunk.toString()).slice(-20_000);
        const taking = /orca worker (\d+): taking jobs/.exec(this.log);
        if (taking) resolve(Number(taking[1]));
      });
      child.on('close', (code, signal) => reject(new Error(`the worker on ${host.name} exited (${code ?? signal}): ${this.log}`)));
    });
    this.ready.catch(() => {});
  }

  get stderr(): string {
    return this.log;
  }
}

function ip(...args: string[]): void {
  execFileSync('ip', args, { stdio: 'pipe' });
}

function tryIp(...args: string[]): void {
  try {
    ip(...args);
  } catch {
    // Already gone (a partial create, or the namespace took its end of the pair with it).
  }
}

function nsPids(ns: string): number[] {
  try {
    return execFileSync('ip', ['netns', 'pids', ns], { encoding: 'utf8' }).split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

export const SHARED_FIXTURES = path.join(packageRoot(), 'tests', 'fixtures', 'shared');

/** SIGKILL to the process group `pid` leads; a group already gone is fine. */
function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}
