import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

export interface ProcessRow {
  pid: number;
  pgid: number;
  stat: string;
  args: string;
}

/**
 * Running processes whose command line contains `marker`, from `ps -eo pid,pgid,stat,args`.
 * Zombies are left out: they run nothing, and where init does not reap orphans they never leave.
 */
export function processesMatching(marker: string): ProcessRow[] {
  const table = execFileSync('ps', ['-eo', 'pid=,pgid=,stat=,args='], { encoding: 'utf8' });
  return table
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line))
    .filter((match): match is RegExpExecArray => match !== null)
    .map(([, pid, pgid, stat, args]) => ({ pid: Number(pid), pgid: Number(pgid), stat: stat!, args: args! }))
    .filter((row) => !row.stat.startsWith('Z') && !row.stat.startsWith('X') && row.args.includes(marker));
}

/**
 * Polls until every marker shows in a running process. The deadline is a safety net for a slow
 * machine, not a measure of speed; past it the test fails naming the markers that never showed.
 */
export async function waitForProcesses(markers: string[], deadlineMs = 30_000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const missing = markers.filter((marker) => processesMatching(marker).length === 0);
    if (missing.length === 0) return;
    if (Date.now() > deadline) throw new Error(`processes never started: ${missing.join(', ')}`);
    await sleep(50);
  }
}

/**
 * Polls until each command runs as a process of its own: one whose command line starts with it.
 * Unlike `waitForProcesses`, the shell whose script merely holds the command does not count, so a
 * caller that signals next knows the command itself (and whatever the script did before it, such as
 * a `trap`) is under way, not the shell still reading its script.
 */
export async function waitForCommands(commands: string[], deadlineMs = 30_000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const missing = commands.filter((command) => !processesMatching(command).some((row) => row.args.startsWith(command)));
    if (missing.length === 0) return;
    if (Date.now() > deadline) throw new Error(`commands never started: ${missing.join(', ')}`);
    await sleep(50);
  }
}

/**
 * Polls until no running process shows `marker`, and returns what is left at the deadline (empty
 * when all went). The deadline is a safety net, not an assertion on speed.
 */
export async function waitForNoProcess(marker: string, deadlineMs = 30_000): Promise<ProcessRow[]> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const left = processesMatching(marker);
    if (left.length === 0 || Date.now() > deadline) return left;
    await sleep(50);
  }
}

/**
 * Pids of the running processes whose working folder is `dir` or inside it (from /proc), however
 * they were started: language servers and the compilers they spawn, sandboxed or not.
 */
export function processesWorkingIn(dir: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let cwd: string;
    let state: string;
    try {
      cwd = readlinkSync(`/proc/${entry}/cwd`);
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0]!;
    } catch {
      continue; // gone, or not ours to look at
    }
    if (state !== 'Z' && state !== 'X' && (cwd === dir || cwd.startsWith(`${dir}/`))) found.push(Number(entry));
  }
  return found;
}

/**
 * The pid a process writes to `file`, once it is there whole. Waiting for the file alone is not
 * enough: read between its creation and its write it is empty, and `process.kill(Number(''))` is
 * `kill(0)`, which signals the caller's own process group (the whole test run).
 */
export async function pidWrittenTo(file: string, deadlineMs = 30_000): Promise<number> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const text = existsSync(file) ? readFileSync(file, 'utf8').trim() : '';
    if (/^[1-9]\d*$/.test(text)) return Number(text);
    if (Date.now() > deadline) throw new Error(`no pid was written to ${file}${text ? ` (it holds "${text}")` : ''}`);
    await sleep(20);
  }
}
