import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import type { TargetObservation } from './evidence.js';

/**
 * Which process listens on a TCP port, and where it runs from, read from Linux's /proc:
 * - the LISTEN sockets and their inodes from /proc/<pid>/net/tcp and tcp6, once per network
 *   namespace (a sandboxed command has its own, invisible from /proc/net of this process);
 * - the process holding the socket from /proc/<pid>/fd (`socket:[inode]`);
 * - its working folder from /proc/<pid>/cwd and its command line from /proc/<pid>/cmdline.
 * A listener whose process cannot be inspected (another user's) is reported with pid null.
 * Processes come and go while this reads: one that vanishes mid-read is passed over.
 */
export interface PortListener {
  port: number;
  pid: number | null;
  cwd: string | null;
  command: string | null;
}

const LISTEN = '0A';

export function listenersOn(ports: readonly number[]): Map<number, PortListener> {
  if (!existsSync('/proc/self/net/tcp')) {
    throw new Error('finding the process behind a port needs Linux /proc (no /proc/self/net/tcp here)');
  }
  const wanted = new Set(ports);
  const found = new Map<number, PortListener>();
  for (const pids of pidsByNetNamespace()) {
    const inodes = listeningInodes(pids[0]!, wanted);
    if (inodes.size === 0) continue;
    const owners = socketOwners(pids, new Set(inodes.keys()));
    for (const [inode, port] of inodes) {
      if (found.has(port)) continue;
      const pid = owners.get(inode) ?? null;
      found.set(port, {
        port,
        pid,
        cwd: pid === null ? null : readLink(`/proc/${pid}/cwd`),
        command: pid === null ? null : commandLine(pid),
      });
    }
    for (const port of found.keys()) wanted.delete(port);
    if (wanted.size === 0) break;
  }
  return found;
}

/** Pids grouped by network namespace, this process's namespace first. */
function pidsByNetNamespace(): number[][] {
  const own = readLink('/proc/self/ns/net');
  const groups = new Map<string, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const ns = readLink(`/proc/${entry}/ns/net`);
    if (ns === null) continue;
    const group = groups.get(ns) ?? [];
    group.push(Number(entry));
    groups.set(ns, group);
  }
  const ordered = [...groups.entries()].sort(([a], [b]) => (a === own ? -1 : b === own ? 1 : 0));
  return ordered.map(([, pids]) => pids);
}

/** inode → port of the LISTEN sockets on `wanted` ports in the namespace `pid` lives in. */
function listeningInodes(pid: number, wanted: ReadonlySet<number>): Map<string, number> {
  const inodes = new Map<string, number>();
  for (const table of ['tcp', 'tcp6']) {
    const text = readText(`/proc/${pid}/net/${table}`);
    if (text === null) continue;
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10 || fields[3] !== LISTEN) continue;
      const port = Number.parseInt(fields[1]!.split(':')[1] ?? '', 16);
      if (wanted.has(port) && fields[9] !== '0') inodes.set(fields[9]!, port);
    }
  }
  return inodes;
}

function socketOwners(pids: readonly number[], inodes: ReadonlySet<string>): Map<string, number> {
  const owners = new Map<string, number>();
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // gone, or another user's process
    }
    for (const fd of fds) {
      const target = readLink(`/proc/${pid}/fd/${fd}`);
      const inode = target !== null ? /^socket:\[(\d+)\]$/.exec(target)?.[1] : undefined;
      if (inode !== undefined && inodes.has(inode) && !owners.has(inode)) owners.set(inode, pid);
    }
    if (owners.size === inodes.size) break;
  }
  return owners;
}

function commandLine(pid: number): string | null {
  const raw = readText(`/proc/${pid}/cmdline`);
  return raw === null ? null : raw.split('\0').filter(Boolean).join(' ');
}

/** A /proc link, or null when the process is gone or not ours to read. */
function readLink(file: string): string | null {
  try {
    return readlinkSync(file);
  } catch {
    return null;
  }
}

function readText(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/**
 * Watches who listens on `ports` while a check runs: once now (`before`), then every
 * `intervalMs` (`during`) until each port has been seen, `stop()` is called, or `maxMs` has
 * passed (a watch whose check never reported back must not poll forever). The first sighting of
 * each port is kept; a port never seen is `never`.
 */
export function watchTargets(ports: readonly number[], intervalMs = 200, maxMs = 15 * 60_000): { stop(): TargetObservation[] } {
  const seen = new Map<number, TargetObservation>();
  const look = (when: 'before' | 'during') => {
    const missing = ports.filter((port) => !seen.has(port));
    if (missing.length === 0) return;
    for (const listener of listenersOn(missing).values()) seen.set(listener.port, { ...listener, seen: when });
  };
  if (ports.length > 0) look('before');
  const deadline = Date.now() + maxMs;
  const timer =
    ports.length > 0
      ? setInterval(() => {
          if (Date.now() > deadline || seen.size === ports.length) clearInterval(timer);
          else look('during');
        }, intervalMs)
      : undefined;
  timer?.unref();
  return {
    stop() {
      clearInterval(timer);
      return ports.map((port) => seen.get(port) ?? { port, seen: 'never', pid: null, cwd: null, command: null });
    },
  };
}
