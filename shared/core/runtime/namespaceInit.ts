import { readFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { z } from 'zod';
import { pollUntil } from './pollUntil.js';

/** What bwrap's `--info-fd` writes (it names the namespaces too): the init's pid, as this host numbers it. */
const InfoSchema = z.object({ 'child-pid': z.number().int().positive() });

/** The longest pause between looks (the first are short: on the normal path the init is a zombie within a millisecond or two). */
const MAX_POLL_MS = 20;

/**
 * The init (pid 1) of the pid namespace a sandboxed command ran in. bwrap's outer process exits as
 * soon as the command does; its init exits a moment later, and as it exits the kernel SIGKILLs
 * every process left in the namespace (a `setsid` writer, a daemon) and waits until each is gone
 * (zap_pid_ns_processes) before the init itself becomes a zombie. So once the init is a zombie or
 * gone, nothing the command started can still write: waiting for that, rather than for the outer
 * bwrap alone, makes "the call returned, so nothing of it runs" hold by code, not by timing.
 */
export class NamespaceInit {
  private constructor(
    readonly pid: number,
    /** Its start time (/proc/PID/stat field 22), so a later process given the same pid is not taken for it; undefined: already gone. */
    private readonly startTime: string | undefined,
  ) {}

  /**
   * Reads bwrap's info from `pipe` to its end (bwrap closes it once written, or by exiting) and
   * notes the init's start time at once, while bwrap, its parent, still holds it. Undefined when
   * bwrap wrote nothing: it ended before it made the namespace, so nothing ran in one.
   */
  static read(pipe: Readable): Promise<NamespaceInit | undefined> {
    return new Promise((resolve, reject) => {
      let text = '';
      pipe.setEncoding('utf8');
      pipe.on('data', (chunk: string) => {
        text += chunk;
      });
      pipe.on('error', reject);
      pipe.on('close', () => {
        if (text.trim() === '') return resolve(undefined);
        try {
          const pid = InfoSchema.parse(JSON.parse(text))['child-pid'];
          resolve(new NamespaceInit(pid, statFields(pid)?.startTime));
        } catch (error) {
          reject(new Error(`bwrap's --info-fd wrote what is not its JSON (${JSON.stringify(text.slice(0, 200))}): ${String(error)}`));
        }
      });
    });
  }

  /** Whether the init has finished exiting: no process at its pid, another one there, or a zombie. */
  ended(): boolean {
    if (this.startTime === undefined) return true;
    const now = statFields(this.pid);
    return now === undefined || now.startTime !== this.startTime || now.state === 'Z' || now.state === 'X';
  }

  /**
   * Resolves once the init has finished exiting; throws after `ms` if it has not (a process of the
   * namespace stuck in uninterruptible I/O keeps it waiting), so the caller fails saying so rather
   * than reporting a command over while something of it may still run.
   */
  async waitForEnd(ms: number): Promise<void> {
    if (!(await pollUntil(() => this.ended(), ms, MAX_POLL_MS))) {
      throw new Error(
        `the sandbox's pid namespace (its init is pid ${this.pid}) still had processes ${ms} ms after the command ended; ` +
          'something it started may still run',
      );
    }
  }
}

/** The state and start time in /proc/PID/stat; undefined when no process has that pid. */
function statFields(pid: number): { state: string; startTime: string } | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // ESRCH: it was reaped between open and read.
    if (code === 'ENOENT' || code === 'ESRCH') return undefined;
    throw error;
  }
  // "pid (comm) state ppid …": comm may hold spaces and parentheses, so split after the last ')'.
  // After it, field 3 (state) is at index 0 and field 22 (starttime) at index 19.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0]!, startTime: fields[19]! };
}
