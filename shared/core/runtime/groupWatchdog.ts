import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Writable } from 'node:stream';

/** The watchdog's script (what it is told, and what it does once its parent is gone), read on first use. */
let script: string | undefined;

/**
 * Process groups are started detached (their own session), so they do not die with the process
 * that started it; its exit handler kills them, but a process killed with SIGKILL (or by the OOM
 * killer) runs no handler. The watchdog covers that case: a small bash process in a session of its
 * own, told over a pipe which groups are live. The kernel closes the pipe however its parent ends,
 * and the watchdog then stops the groups still listed (groupWatchdog.sh). One per process, started
 * with the first group; it holds nothing open that would keep this process alive.
 */
export class GroupWatchdog {
  private child: ChildProcessByStdio<Writable, null, null> | undefined;
  private readonly watched = new Set<number>();
  /** This process's folder of agent cgroups (agentCgroup.ts), ended as a whole with the groups. */
  private cgroups: string | undefined;

  /** A group started; `cgroups` names the folder its cgroup is in, when it has one. */
  started(pgid: number, cgroups?: string): void {
    this.watched.add(pgid);
    const newFolder = cgroups !== undefined && cgroups !== this.cgroups;
    if (newFolder) this.cgroups = cgroups;
    if (!this.child) return this.start();
    if (newFolder) this.child.stdin.write(`C${cgroups}\n`);
    this.child.stdin.write(`+${pgid}\n`);
  }

  ended(pgid: number): void {
    if (!this.watched.delete(pgid)) return;
    this.child?.stdin.write(`-${pgid}\n`);
  }

  /** Its pid while it runs (for tests). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Starts a watchdog and tells it every group being watched (the first, or after one was lost). */
  private start(): void {
    script ??= readFileSync(new URL('./groupWatchdog.sh', import.meta.url), 'utf8');
    const child = spawn('bash', ['-c', script], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
    child.unref();
    const lost = (why: string) => {
      if (this.child !== undefined && this.child !== child) return;
      this.child = undefined;
      // The groups are still killed on a normal exit and on SIGTERM; only SIGKILL is uncovered now.
      process.stderr.write(`orca: the process-group watchdog ${why}; a new one starts with the next group\n`);
    };
    child.on('error', (error) => lost(`could not run (${error.message})`));
    child.on('exit', (code, signal) => lost(`ended (${signal ?? `exit code ${code}`})`));
    // A write after it died fails with EPIPE: `exit` says what happened.
    child.stdin.on('error', () => {});
    if (child.pid === undefined) return;
    this.child = child;
    if (this.cgroups !== undefined) child.stdin.write(`C${this.cgroups}\n`);
    child.stdin.write([...this.watched].map((pgid) => `+${pgid}\n`).join(''));
  }
}
