import { readdirSync, readFileSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { type ProcessGroup, spawnGroup } from '../../core/runtime/processGroup.js';
import type { ShellSettings } from '../../core/tool/tool.js';

/** Where and how a session's language servers run: the agent's workspace, environment and sandbox. */
export interface ServerLaunch {
  cwd: string;
  env: Record<string, string>;
  /** The session's sandbox wrapper (bwrap), when its shell is sandboxed. */
  wrap?: ShellSettings['wrap'];
}

/** Characters of a server's stderr kept to say why it failed. */
const STDERR_TAIL = 4_000;

export interface ServerProcess {
  group: ProcessGroup;
  stdin: Writable;
  stdout: Readable;
  /** The end of what it wrote on stderr, for the message when it fails. */
  stderrTail(): string;
  /** Whether it runs inside the sandbox (its own pid namespace: it cannot see this process's pid). */
  sandboxed: boolean;
}

/**
 * Starts `node script args` as a language server in a process group of its own, so that it is
 * killed with the agent's other processes (on abort, on a worker's SIGTERM, and by the group
 * watchdog when the worker is killed outright). With a sandbox it runs inside it like Bash: the
 * filesystem read-only but for the worktree and a private /tmp, no network, no capabilities.
 * The protocol goes over its stdin and stdout.
 */
export async function launchServer(script: string, args: readonly string[], launch: ServerLaunch): Promise<ServerProcess> {
  const argv = [process.execPath, script, ...args];
  const command = launch.wrap?.(`exec ${argv.map(shellQuote).join(' ')}`, launch.cwd);
  const group = command
    ? await spawnGroup(command.file, command.args, { cwd: launch.cwd, env: launch.env, keepStdinOpen: true })
    : await spawnGroup(argv[0]!, argv.slice(1), { cwd: launch.cwd, env: launch.env, keepStdinOpen: true });
  let tail = '';
  group.child.stderr.setEncoding('utf8');
  group.child.stderr.on('data', (chunk: string) => {
    tail = (tail + chunk).slice(-STDERR_TAIL);
  });
  const { stdin } = group.child;
  if (!stdin) throw new Error('the language server was started without a stdin pipe');
  return { group, stdin, stdout: group.child.stdout, stderrTail: () => tail.trim(), sandboxed: command !== undefined };
}

/** One word for `bash -c`, whatever it holds. */
function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * `pid` and every process below it, whatever session or group it moved to: a sandboxed server
 * runs in bwrap's own session and pid namespace, outside the group `ProcessGroup.kill` waits
 * for, and dies only once bwrap does. Read from /proc (Linux); elsewhere just `pid`.
 */
export function processTree(pid: number): number[] {
  if (process.platform !== 'linux') return [pid];
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = statOf(Number(entry));
    if (!stat) continue;
    const siblings = children.get(stat.ppid) ?? [];
    siblings.push(Number(entry));
    children.set(stat.ppid, siblings);
  }
  const tree: number[] = [];
  for (const queue = [pid]; queue.length > 0; ) {
    const next = queue.shift()!;
    tree.push(next);
    queue.push(...(children.get(next) ?? []));
  }
  return tree;
}

/** Waits up to `ms` until none of `pids` runs (zombies do not); returns those still running then. */
export async function waitUntilGone(pids: readonly number[], ms: number): Promise<number[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const left = pids.filter((pid) => {
      const state = statOf(pid)?.state;
      return state !== undefined && state !== 'Z' && state !== 'X';
    });
    if (left.length === 0 || Date.now() >= deadline) return left;
    await sleep(20);
  }
}

function statOf(pid: number): { state: string; ppid: number } | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined; // gone
  }
  // "pid (comm) state ppid …": comm may hold spaces and parentheses, so split after the last ')'.
  const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { state: state!, ppid: Number(ppid) };
}
